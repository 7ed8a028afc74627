// How long a run lost to memory stalls: the kernel's pressure stall
// information (PSI, Linux 4.20+), the "full" line's cumulative total, read at
// each of the monitor's samples. "full" is the time in which every non-idle
// task of the scope waited on memory (reclaim, swap-in, refaults of evicted
// code or data) at once: with the run busy, time it made no progress. A
// neighbour that stalls in its own memory limit while the run computes does
// not count ("some" would); a stall of the run while a neighbour elsewhere
// computes does not count either at the system scope (a false negative, not
// a false flag). A run whose window lost more than kContendedShare this way
// is flagged (results/result_record.hpp). Torch-free.
#pragma once
#include <optional>
#include <string>

namespace milabench {

// Where a run's memory stalls are read.
struct PressureSource {
  std::string path;   // a PSI file: ".../memory.pressure" or "/proc/pressure/memory"
  std::string scope;  // "cgroup /a/b": the run's cgroup v2; "system": the whole machine
};

// The run's own cgroup v2 (the "0::PATH" line of `proc_dir`/cgroup) when its
// memory.pressure under `cgroup_root` (or its "unified" folder, the hybrid
// layout) can be read, else `system_path` when it
// can. nullopt with `why` when neither can (a kernel without PSI, or booted
// with psi=0).
std::optional<PressureSource> find_memory_pressure(const std::string& proc_dir, const std::string& cgroup_root,
                                                   const std::string& system_path, std::string& why);

// Seconds during which every non-idle task of the scope stalled on memory
// (the "full" line's total=, microseconds); nullopt when the file cannot be
// read or holds no such line (kernels before 5.x give no "full" line for the
// system).
std::optional<double> read_memory_stall_s(const std::string& path);

}  // namespace milabench
