#include "monitor/cpu_share.hpp"

#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

namespace milabench {

std::optional<double> read_cpus_busy_s(const std::string& stat_path, const std::vector<int>& cpus, std::string& why) {
  std::ifstream in(stat_path);
  if (!in) {
    why = "cannot read " + stat_path;
    return std::nullopt;
  }
  std::map<int, double> busy_ticks;  // "cpuN" lines only; the first "cpu " line is the total
  for (std::string line; std::getline(in, line);) {
    if (line.size() < 4 || line.compare(0, 3, "cpu") != 0 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int id = -1;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    fields >> id >> user >> nice >> system >> idle >> iowait >> irq >> softirq;
    if (!fields) continue;
    if (!(fields >> steal)) steal = 0;  // kernels before 2.6.11 have no steal column
    busy_ticks[id] = user + nice + system + irq + softirq + steal;
  }
  static const double ticks_per_s = static_cast<double>(sysconf(_SC_CLK_TCK));
  double total = 0;
  for (int c : cpus) {
    auto it = busy_ticks.find(c);
    if (it == busy_ticks.end()) {
      why = stat_path + " has no line for CPU " + std::to_string(c);
      return std::nullopt;
    }
    total += it->second;
  }
  return total / ticks_per_s;
}

std::optional<double> read_cpus_throttled_s(const std::string& cpu_root, const std::vector<int>& cpus,
                                            std::string& why) {
  double total_ms = 0;
  for (int c : cpus) {
    const std::string path = cpu_root + "/cpu" + std::to_string(c) + "/thermal_throttle/core_throttle_total_time_ms";
    std::ifstream in(path);
    double ms = -1;
    if (!(in >> ms) || ms < 0) {
      why = "no " + path + " (the counter is Intel's, Linux 5.18+; absent on AMD and most VMs)";
      return std::nullopt;
    }
    total_ms += ms;
  }
  return total_ms / 1000.0;
}

}  // namespace milabench
