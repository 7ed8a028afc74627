// CPU sets that follow the machine's topology: a device's CPUs come from its
// NUMA node where hwloc knows it, otherwise from contiguous equal splits.
#pragma once
#include <string>
#include <vector>

namespace milabench {

// CPUs near each PCI device, given as NVML bus ids ("00000000:3B:00.0"):
// the cpuset of the device's closest non-I/O ancestor in hwloc's topology
// (its NUMA node or package). An entry is empty when hwloc does not know
// the device (no such bus id, no PCI discovery).
std::vector<std::vector<int>> pci_local_cpus(const std::vector<std::string>& bus_ids);

// `n` mutually exclusive, equal-size sets from `allowed`. When `local` has
// one non-empty entry per device and every locality group (devices with the
// same local CPUs) has enough allowed CPUs for its devices, device i's set is
// taken from local[i]; the size is the smallest share over the groups.
// Otherwise contiguous equal splits (partition_cpus). Throws
// std::runtime_error when n < 1 or n > allowed.size().
std::vector<std::vector<int>> partition_cpus_by_locality(const std::vector<int>& allowed,
                                                         const std::vector<std::vector<int>>& local, int n);

// What `jobs` and `cgroups setup` use: the bus ids of `gpu_ids` (from NVML),
// their hwloc locality, then partition_cpus_by_locality over allowed_cpus().
// Without GPUs or NVML: contiguous splits. Throws as partition_cpus.
std::vector<std::vector<int>> device_cpu_partitions(const std::vector<std::string>& gpu_ids, int n);

}  // namespace milabench
