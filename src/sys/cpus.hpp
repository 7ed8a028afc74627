#pragma once
// The CPUs this process may use: the one owner of that question for the
// suite (device partitions), the data generators and the workloads' thread
// pools. A run pinned to a partition (cgroup cpuset or sched_setaffinity)
// sees only its partition; a CFS quota (docker --cpus, cgroup v1
// cpu.cfs_quota_us or v2 cpu.max) caps the count further.
#include <optional>
#include <string>
#include <vector>

namespace milabench {

// The CPU ids in this process's affinity mask, ascending; empty when the
// mask cannot be read.
std::vector<int> allowed_cpus();

// How many threads of work this process can run at once: the affinity
// mask's size, capped by the cgroup CPU quota rounded up; at least 1.
// Falls back to std::thread::hardware_concurrency() when the mask cannot be
// read.
int usable_cpu_count();

// The quota in CPUs (quota / period, rounded up) from a cgroup v2 `cpu.max`
// line ("max 100000" or "150000 100000"); nullopt when unlimited or
// malformed.
std::optional<int> cpu_max_quota(const std::string& cpu_max);

// The same from cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us contents
// (quota -1 = unlimited).
std::optional<int> cfs_quota(const std::string& quota_us, const std::string& period_us);

}  // namespace milabench
