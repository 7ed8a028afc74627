#include "monitor/cpu_share.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace milabench {

std::optional<CpuBusy> read_per_cpu_busy_s(const std::string& stat_path, std::string& why) {
  std::ifstream in(stat_path);
  if (!in) {
    why = "cannot read " + stat_path;
    return std::nullopt;
  }
  static const double ticks_per_s = static_cast<double>(sysconf(_SC_CLK_TCK));
  CpuBusy busy;  // "cpuN" lines only; the first "cpu " line is the total
  for (std::string line; std::getline(in, line);) {
    if (line.size() < 4 || line.compare(0, 3, "cpu") != 0 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int id = -1;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    fields >> id >> user >> nice >> system >> idle >> iowait >> irq >> softirq;
    if (!fields) continue;
    if (!(fields >> steal)) steal = 0;  // kernels before 2.6.11 have no steal column
    busy[id] = (user + nice + system + irq + softirq + steal) / ticks_per_s;
  }
  return busy;
}

std::optional<double> cpus_busy_s(const CpuBusy& busy, const std::vector<int>& cpus, std::string& why) {
  double total = 0;
  for (int c : cpus) {
    auto it = busy.find(c);
    if (it == busy.end()) {
      why = "no line for CPU " + std::to_string(c);
      return std::nullopt;
    }
    total += it->second;
  }
  return total;
}

std::optional<double> read_cpus_busy_s(const std::string& stat_path, const std::vector<int>& cpus, std::string& why) {
  auto busy = read_per_cpu_busy_s(stat_path, why);
  if (!busy) return std::nullopt;
  auto total = cpus_busy_s(*busy, cpus, why);
  if (!total) why = stat_path + " has " + why;
  return total;
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
