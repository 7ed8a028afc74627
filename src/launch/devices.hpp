// Splitting CPUs into device partitions (GPU ids: devices/gpu_ids.hpp).
#pragma once
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sys/cpus.hpp"  // allowed_cpus

namespace milabench {

// Devices a suite runs on when --devices is not given: one per GPU; without
// GPUs, CPU partitions standing in for GPUs as the original runs one copy per
// GPU: two CPUs per partition (a workload's compute thread and its data or
// environment thread), at least 2 partitions (so per-gpu tests run in
// parallel copies and gpu-progression has a scaling.2) and at most 8 (the
// original's 8-GPU node), never more than the CPUs:
//   min(cpus, clamp(cpus / 2, 2, 8)); 1 CPU -> 1, 2-5 -> 2, 6 -> 3, 8 -> 4, 16+ -> 8.
int default_device_count(std::size_t gpus, std::size_t cpus);

// `n` mutually exclusive contiguous sets of equal size from `cpus` (the
// remainder when not divisible is left unused). Throws std::runtime_error
// when n < 1 or n > cpus.size().
std::vector<std::vector<int>> partition_cpus(const std::vector<int>& cpus, int n);

}  // namespace milabench
