// CPU lists in the kernel's text form ("0-3,8") and which CPUs are
// hyperthreads of one core: the one owner of both for the device partitions
// (launch/topology.hpp: a core's threads go to one partition) and the
// monitor (monitor.sibling_cpu: another process on a thread of one of the
// run's cores). Includes nothing of ours.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace milabench {

// "0-3,8" -> {0,1,2,3,8}, as the kernel writes cpuset.cpus and
// thread_siblings_list. Junk (a negative id, a reversed range, an id over
// 65535, a non-number) gives {}.
std::vector<int> parse_cpu_list(const std::string& text);

// {0,1,2,5,7,8} -> "0-2,5,7-8" (runs of consecutive ids in the given order).
std::string cpu_list_string(const std::vector<int>& cpus);

// The kernel's per-CPU sysfs folder (cpuN/topology, cpuN/thermal_throttle);
// tests pass a fake one in its place.
inline constexpr const char* kCpuSysfsRoot = "/sys/devices/system/cpu";

// CPU id -> the CPUs of its core (itself included, ascending). A CPU absent
// from the map counts as a core of its own.
using ThreadSiblings = std::map<int, std::vector<int>>;

// Each of `cpus`' thread_siblings_list under `cpu_root`
// (/sys/devices/system/cpu: cpuN/topology/thread_siblings_list). nullopt
// with `why` naming the file when one cannot be read or parsed.
std::optional<ThreadSiblings> read_thread_siblings(const std::string& cpu_root, const std::vector<int>& cpus,
                                                   std::string& why);

// `cpus` with each core's threads together: the cores in the order their
// first thread appears in `cpus`, a core's threads (those in `cpus`)
// ascending. The input order when no two of `cpus` share a core.
std::vector<int> order_by_core(const std::vector<int>& cpus, const ThreadSiblings& siblings);

// The threads of `cpus`' cores that are not in `cpus`, ascending: CPUs where
// another process slows the run without taking its CPUs.
std::vector<int> siblings_outside(const std::vector<int>& cpus, const ThreadSiblings& siblings);

// Two of a list of CPU sets that hold threads of the same cores: their
// indices (first < second), how many cores, and one such core's thread in
// each.
struct SharedCores {
  std::size_t first = 0, second = 0;
  int cores = 0;
  int cpu_in_first = -1, cpu_in_second = -1;
};

// Every pair of `sets` that share a core, in index order. A CPU in both sets
// is not counted (that is one CPU shared, not a core).
std::vector<SharedCores> shared_cores(const std::vector<std::vector<int>>& sets, const ThreadSiblings& siblings);

}  // namespace milabench
