// Who used the run's CPUs. The busy time of the CPUs this run may use (the
// per-CPU lines of /proc/stat) against the run process's own CPU time: the
// rest is time other processes took on those CPUs (with the kernel's work for
// them and a hypervisor's steal). A run that shared its CPUs measured less
// than the machine can do; the summary and the report flag it
// (results/result_record.hpp kContendedCpuShare; docs/reliability.md).
// Torch-free.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace milabench {

// Busy seconds (user + nice + system + irq + softirq + steal; guest time is
// inside user) summed over `cpus`, read from a /proc/stat-format file. nullopt
// with `why` when the file cannot be read or lacks a line for one of `cpus`.
std::optional<double> read_cpus_busy_s(const std::string& stat_path, const std::vector<int>& cpus, std::string& why);

// The share of `cpus` CPUs' time that other processes used, from samples of
// (time, busy seconds of those CPUs, this process's CPU seconds), in order.
class ForeignCpuShare {
 public:
  explicit ForeignCpuShare(int cpus) : cpus_(cpus) {}

  // One sample; a sample not later than the previous one is ignored.
  void add(double t, double busy_s, double own_s);

  // Share of the CPUs' time others used between t0 and t1 (0..1): each
  // interval between samples that overlaps [t0, t1] weighs by its overlap.
  // nullopt when no interval overlaps.
  std::optional<double> share_between(double t0, double t1) const;

  // Per interval: the smallest, the time-weighted mean and the largest share;
  // nullopt before two samples.
  struct Range {
    double min, mean, max;
  };
  std::optional<Range> range() const;

 private:
  struct Interval {
    double t0, t1, share;
  };
  int cpus_;
  std::vector<Interval> intervals_;
  std::optional<double> last_t_, last_busy_, last_own_;
};

}  // namespace milabench
