// Host-side readings for the monitor: a process's CPU time and memory from
// /proc, and CPU package energy from RAPL (/sys/class/powercap) where the
// kernel exposes it and it is readable (energy_uj is often root-only).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace milabench {

struct ProcessReading {
  double cpu_time_s = 0.0;    // user + system CPU time since the process started, seconds
  double rss_mb = 0.0;        // resident set now, MiB (VmRSS)
  double rss_peak_mb = 0.0;   // peak resident set, MiB (VmHWM)
  double major_faults = 0.0;  // page faults that read from disk (swap or file) since it started (majflt)
};

// Reads `proc_dir` ("/proc/self" or "/proc/<pid>"); nullopt when unreadable.
std::optional<ProcessReading> read_process(const std::string& proc_dir = "/proc/self");

// One RAPL package domain: "<root>/intel-rapl:N" (also "amd-rapl" style
// names under the same layout) with its name file "package-N".
struct RaplDomain {
  std::string name;           // "package-0"
  std::string energy_file;    // .../energy_uj, microjoules, wraps at max_range_uj
  uint64_t max_range_uj = 0;  // 0 = unknown (no wrap correction)
};

// Top-level package domains under `powercap_root` whose energy_uj can be
// read now. `why_none` gets one line when the list is empty.
std::vector<RaplDomain> find_rapl_packages(const std::string& powercap_root, std::string& why_none);

// Microjoules counter now; nullopt when unreadable.
std::optional<uint64_t> read_energy_uj(const RaplDomain& d);

// Joules between two counter readings, correcting one wrap-around.
double energy_delta_j(uint64_t before_uj, uint64_t after_uj, uint64_t max_range_uj);

}  // namespace milabench
