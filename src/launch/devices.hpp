// Splitting CPUs into device partitions (GPU ids: devices/gpu_ids.hpp).
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace milabench {

// CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

// `n` mutually exclusive contiguous sets of equal size from `cpus` (the
// remainder when not divisible is left unused). Throws std::runtime_error
// when n < 1 or n > cpus.size().
std::vector<std::vector<int>> partition_cpus(const std::vector<int>& cpus, int n);

// "0-3,8" style list, like /proc/self/status Cpus_allowed_list.
std::string cpu_list_string(const std::vector<int>& cpus);

}  // namespace milabench
