// Who used the run's CPUs. The busy time of the CPUs this run may use (the
// per-CPU lines of /proc/stat) against the run process's own CPU time: the
// rest is time other processes took on those CPUs (with the kernel's work for
// them and a hypervisor's steal). A run that shared its CPUs measured less
// than the machine can do; the summary and the report flag it
// (monitor/time_share.hpp; docs/reliability.md).
// Torch-free.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace milabench {

// Each CPU's busy seconds (user + nice + system + irq + softirq + steal;
// guest time is inside user), read from a /proc/stat-format file's "cpuN"
// lines. nullopt with `why` when the file cannot be read.
using CpuBusy = std::map<int, double>;
std::optional<CpuBusy> read_per_cpu_busy_s(const std::string& stat_path, std::string& why);

// The busy seconds of `cpus` summed; nullopt with `why` when `busy` has no
// line for one of them. 0 for no CPUs.
std::optional<double> cpus_busy_s(const CpuBusy& busy, const std::vector<int>& cpus, std::string& why);

// read_per_cpu_busy_s, then cpus_busy_s.
std::optional<double> read_cpus_busy_s(const std::string& stat_path, const std::vector<int>& cpus, std::string& why);

// Seconds `cpus` spent throttled for heat, summed over them: each one's
// `cpu_root`/cpuN/thermal_throttle/core_throttle_total_time_ms (x86 thermal
// interrupts; Linux 5.18+; Intel; hyperthread siblings read their core's).
// nullopt with `why` when one of them has no such counter (AMD, a VM, an
// older kernel).
std::optional<double> read_cpus_throttled_s(const std::string& cpu_root, const std::vector<int>& cpus,
                                            std::string& why);

}  // namespace milabench
