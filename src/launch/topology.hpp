// CPU sets that follow the machine's topology: a device's CPUs come from its
// NUMA node where hwloc knows it, otherwise from contiguous equal splits; in
// both, a core's hyperthreads go to one set where the sizes allow, so two
// devices' runs do not share a core (sys/cpu_topology.hpp; docs/isolation.md).
#pragma once
#include <string>
#include <vector>

#include "sys/cpu_topology.hpp"

namespace milabench {

// CPUs near each PCI device, given as NVML bus ids ("00000000:3B:00.0"):
// the cpuset of the device's closest non-I/O ancestor in hwloc's topology
// (its NUMA node or package). An entry is empty when hwloc does not know
// the device (no such bus id, no PCI discovery).
std::vector<std::vector<int>> pci_local_cpus(const std::vector<std::string>& bus_ids);

// partition_cpus over `cpus` ordered by core (order_by_core), each set then
// ascending: whole cores per set when each set's size is a multiple of the
// threads per core, else at most n - 1 cores split between two sets. Throws
// as partition_cpus.
std::vector<std::vector<int>> partition_cpus_by_core(const std::vector<int>& cpus, int n,
                                                     const ThreadSiblings& siblings);

// `n` mutually exclusive, equal-size sets from `allowed`, each ascending.
// When `local` has one non-empty entry per device and every locality group
// (devices with the same local CPUs) has enough allowed CPUs for its
// devices, device i's set is taken from local[i], its cores kept whole as in
// partition_cpus_by_core; the size is the smallest share over the groups.
// Otherwise partition_cpus_by_core(allowed). Throws std::runtime_error when
// n < 1 or n > allowed.size().
std::vector<std::vector<int>> partition_cpus_by_locality(const std::vector<int>& allowed,
                                                         const std::vector<std::vector<int>>& local, int n,
                                                         const ThreadSiblings& siblings = {});

// What `jobs` and `cgroups setup` use: the bus ids of `gpu_ids` (from NVML),
// their hwloc locality and the CPUs' thread siblings (sysfs; none when
// unreadable), then partition_cpus_by_locality over allowed_cpus(). Without
// GPUs or NVML: partition_cpus_by_core. Throws as partition_cpus.
std::vector<std::vector<int>> device_cpu_partitions(const std::vector<std::string>& gpu_ids, int n);

}  // namespace milabench
