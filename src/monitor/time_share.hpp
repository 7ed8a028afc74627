// A share of time, per interval between the monitor's samples, and within
// the summary window: how much of its CPUs' time other processes took
// (monitor/cpu_share.hpp), how long the run stalled on memory
// (monitor/memory_pressure.hpp), how long a GPU ran slowed down for heat or
// a power brake. A run that lost more than kContendedShare of its window to
// any of them is flagged (results/result_record.hpp). Torch-free.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace milabench {

class TimeShare {
 public:
  // `capacity`: how many seconds of the counter one second of wall time
  // holds (the number of CPUs for CPU time; 1 for a stall counter).
  explicit TimeShare(double capacity = 1.0) : capacity_(capacity) {}

  // A sample of a cumulative counter of used seconds at time t: the
  // interval since the previous sample gets (used − used before) /
  // (capacity · Δt), clamped to 0..1. A sample not later than the previous
  // one is ignored.
  void add_count(double t, double used_s);

  // An interval whose share is known directly (clamped to 0..1); an empty
  // or reversed interval is ignored.
  void add_interval(double t0, double t1, double share);

  // The share between t0 and t1: each interval that overlaps [t0, t1] weighs
  // by its overlap. nullopt when no interval overlaps.
  std::optional<double> share_between(double t0, double t1) const;

  // Per interval: the smallest, the time-weighted mean and the largest share;
  // nullopt before the first interval.
  struct Range {
    double min, mean, max;
  };
  std::optional<Range> range() const;

  // {"share": {min, mean, max} | null, "window_share": x | null}; the window
  // share is null without a window or when no interval overlaps it.
  nlohmann::json to_json(const std::optional<std::pair<double, double>>& window) const;

 private:
  struct Interval {
    double t0, t1, share;
  };
  double capacity_;
  std::vector<Interval> intervals_;
  std::optional<double> last_t_, last_used_;
};

}  // namespace milabench
