#include "launch/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <map>

#include "devices/nvml.hpp"
#include "launch/devices.hpp"

namespace milabench {

std::vector<std::vector<int>> pci_local_cpus(const std::vector<std::string>& bus_ids) {
  std::vector<std::vector<int>> out(bus_ids.size());
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return out;
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return out;
  }
  for (std::size_t i = 0; i < bus_ids.size(); ++i) {
    if (bus_ids[i].empty()) continue;
    hwloc_obj_t dev = hwloc_get_pcidev_by_busidstring(topo, bus_ids[i].c_str());
    if (!dev) continue;
    hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(topo, dev);
    if (!near || !near->cpuset) continue;
    for (int c = hwloc_bitmap_first(near->cpuset); c >= 0; c = hwloc_bitmap_next(near->cpuset, c)) out[i].push_back(c);
  }
  hwloc_topology_destroy(topo);
  return out;
}

namespace {
void sort_each(std::vector<std::vector<int>>& sets) {
  for (auto& s : sets) std::sort(s.begin(), s.end());
}
}  // namespace

std::vector<std::vector<int>> partition_cpus_by_core(const std::vector<int>& cpus, int n,
                                                     const ThreadSiblings& siblings) {
  auto out = partition_cpus(order_by_core(cpus, siblings), n);
  sort_each(out);
  return out;
}

std::vector<std::vector<int>> partition_cpus_by_locality(const std::vector<int>& allowed,
                                                         const std::vector<std::vector<int>>& local, int n,
                                                         const ThreadSiblings& siblings) {
  auto fallback = [&] { return partition_cpus_by_core(allowed, n, siblings); };
  if (n < 1 || static_cast<int>(local.size()) != n) return fallback();
  // Devices grouped by their local CPUs (restricted to the allowed ones).
  std::map<std::vector<int>, std::vector<int>> groups;  // local cpus -> device indices
  for (int i = 0; i < n; ++i) {
    std::vector<int> mine;
    for (int c : local[i])
      if (std::find(allowed.begin(), allowed.end(), c) != allowed.end()) mine.push_back(c);
    if (mine.empty()) return fallback();
    groups[order_by_core(mine, siblings)].push_back(i);
  }
  // Localities must not overlap, or two groups could hand out the same CPU.
  std::vector<int> seen;
  std::size_t size = allowed.size();
  for (const auto& [cpus, devs] : groups) {
    for (int c : cpus)
      if (std::find(seen.begin(), seen.end(), c) != seen.end()) return fallback();
    seen.insert(seen.end(), cpus.begin(), cpus.end());
    size = std::min(size, cpus.size() / devs.size());
  }
  if (size == 0) return fallback();
  std::vector<std::vector<int>> out(n);
  for (const auto& [cpus, devs] : groups)
    for (std::size_t k = 0; k < devs.size(); ++k)
      out[devs[k]].assign(cpus.begin() + k * size, cpus.begin() + (k + 1) * size);
  sort_each(out);
  return out;
}

std::vector<std::vector<int>> device_cpu_partitions(const std::vector<std::string>& gpu_ids, int n) {
  std::vector<int> allowed = allowed_cpus();
  std::string why;
  const ThreadSiblings siblings = read_thread_siblings(kCpuSysfsRoot, allowed, why).value_or(ThreadSiblings{});
  Nvml& nvml = Nvml::instance();
  if (gpu_ids.empty() || static_cast<int>(gpu_ids.size()) < n || !nvml.available())
    return partition_cpus_by_core(allowed, n, siblings);
  std::vector<std::string> bus(n);
  for (int i = 0; i < n; ++i)
    if (auto info = nvml.info(nvml.index_of(gpu_ids[i]))) bus[i] = info->pci_bus_id;
  return partition_cpus_by_locality(allowed, pci_local_cpus(bus), n, siblings);
}

}  // namespace milabench
