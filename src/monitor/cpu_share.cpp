#include "monitor/cpu_share.hpp"

#include <unistd.h>

#include <algorithm>
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

void ForeignCpuShare::add(double t, double busy_s, double own_s) {
  if (last_t_ && t > *last_t_ && cpus_ > 0) {
    const double capacity = cpus_ * (t - *last_t_);
    const double others = (busy_s - *last_busy_) - (own_s - *last_own_);
    intervals_.push_back({*last_t_, t, std::clamp(others / capacity, 0.0, 1.0)});
  }
  if (!last_t_ || t > *last_t_) {
    last_t_ = t;
    last_busy_ = busy_s;
    last_own_ = own_s;
  }
}

std::optional<double> ForeignCpuShare::share_between(double t0, double t1) const {
  double weighted = 0, weight = 0;
  for (const auto& i : intervals_) {
    const double overlap = std::min(i.t1, t1) - std::max(i.t0, t0);
    if (overlap <= 0) continue;
    weighted += i.share * overlap;
    weight += overlap;
  }
  if (weight <= 0) return std::nullopt;
  return weighted / weight;
}

std::optional<ForeignCpuShare::Range> ForeignCpuShare::range() const {
  if (intervals_.empty()) return std::nullopt;
  Range r{1.0, 0.0, 0.0};
  double weighted = 0, weight = 0;
  for (const auto& i : intervals_) {
    r.min = std::min(r.min, i.share);
    r.max = std::max(r.max, i.share);
    weighted += i.share * (i.t1 - i.t0);
    weight += i.t1 - i.t0;
  }
  r.mean = weighted / weight;
  return r;
}

}  // namespace milabench
