#include "sys/cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

namespace milabench {
namespace {

std::optional<int> quota_cpus(double quota, double period) {
  if (!(quota > 0) || !(period > 0)) return std::nullopt;
  return std::max(1, static_cast<int>(std::ceil(quota / period)));
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// This process's cgroup path for a v1 controller, or for v2 ("" controller
// list), from /proc/self/cgroup; nullopt when absent.
std::optional<std::string> own_cgroup(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string ctrls = line.substr(a + 1, b - a - 1);
    bool match =
        controller.empty() ? ctrls.empty() : ("," + ctrls + ",").find("," + controller + ",") != std::string::npos;
    if (match) return line.substr(b + 1);
  }
  return std::nullopt;
}

std::optional<int> cgroup_quota() {
  if (auto v2 = own_cgroup("")) {
    if (auto q = cpu_max_quota(read_all("/sys/fs/cgroup" + *v2 + "/cpu.max"))) return q;
  }
  if (auto v1 = own_cgroup("cpu")) {
    for (const char* root : {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"}) {
      std::string dir = std::string(root) + *v1;
      if (auto q = cfs_quota(read_all(dir + "/cpu.cfs_quota_us"), read_all(dir + "/cpu.cfs_period_us"))) return q;
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<int> allowed_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int i = 0; i < CPU_SETSIZE; ++i)
    if (CPU_ISSET(i, &set)) out.push_back(i);
  return out;
}

int usable_cpu_count() {
  int n = static_cast<int>(allowed_cpus().size());
  if (n == 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (auto q = cgroup_quota()) n = std::min(n, *q);
  return std::max(1, n);
}

std::optional<int> cpu_max_quota(const std::string& cpu_max) {
  std::istringstream in(cpu_max);
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max") return std::nullopt;
  try {
    return quota_cpus(std::stod(quota), period);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<int> cfs_quota(const std::string& quota_us, const std::string& period_us) {
  try {
    return quota_cpus(std::stod(quota_us), std::stod(period_us));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace milabench
