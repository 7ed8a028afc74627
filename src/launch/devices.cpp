#include "launch/devices.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>

namespace milabench {

int default_device_count(std::size_t gpus, std::size_t cpus) {
  if (gpus > 0) return static_cast<int>(gpus);
  const std::size_t per_cpu_pair = std::clamp<std::size_t>(cpus / 2, 2, 8);
  return static_cast<int>(std::max<std::size_t>(1, std::min(cpus, per_cpu_pair)));
}

std::vector<std::vector<int>> partition_cpus(const std::vector<int>& cpus, int n) {
  if (n < 1) throw std::runtime_error(fmt::format("cannot split CPUs into {} partitions", n));
  if (static_cast<std::size_t>(n) > cpus.size())
    throw std::runtime_error(
        fmt::format("cannot split {} CPUs into {} partitions: more devices than CPUs", cpus.size(), n));
  std::size_t size = cpus.size() / n;
  std::vector<std::vector<int>> out;
  for (int i = 0; i < n; ++i) out.emplace_back(cpus.begin() + i * size, cpus.begin() + (i + 1) * size);
  return out;
}

}  // namespace milabench
