// RateMeter: examples/second in slices of `sample_duration` seconds (the
// original milabench measurement contract). Torch-free.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/steady_state.hpp"

namespace milabench {

struct MeterOptions {
  double sample_duration = 0.5;  // seconds per slice
  int64_t max_count = 0;         // stop after this many examples (0 = never)
  // --until-stable: also stop as soon as the rates recorded so far have
  // settled (steady_state.hpp: the summary window is steady and agrees with
  // the window before it); max_count still bounds the run.
  bool until_stable = false;
  SteadyOptions steady;
};

class RateMeter {
 public:
  using Clock = std::function<double()>;  // monotonic seconds
  using Sync = std::function<void()>;     // waits for the device; may be empty

  RateMeter(MeterOptions opts, Clock clock, Sync sync);

  // Starts the first slice (called once, before the first step).
  void start();
  // Adds n examples. Reads the clock; only when the current slice has ended
  // does it call sync(), re-read the clock and record the slice's rate (into
  // every slice a long step covered). Returns true when a slice closed here.
  bool step(int64_t n);
  // True once count() >= max_count (max_count > 0), or, with until_stable,
  // once a closed slice made the summary window steady.
  bool done() const { return stable_ || (opts_.max_count > 0 && count_ >= opts_.max_count); }
  // True when until_stable ended the run.
  bool stopped_stable() const { return stable_; }
  // Syncs and ends measuring; the partial last slice is not recorded.
  void finish();

  int64_t count() const { return count_; }
  const std::vector<double>& rates() const { return rates_; }
  // Rate of the last closed slice (0 before the first).
  double last_rate() const { return rates_.empty() ? 0.0 : rates_.back(); }
  // {"rates": [...], "count", "time" (measured s), "wall_time" (s), "overhead" (s),
  //  "sample_duration", "max_count", "until_stable" (flag given), "stopped_stable"}
  nlohmann::json to_json() const;

 private:
  MeterOptions opts_;
  Clock clock_;
  Sync sync_;
  std::vector<double> rates_;
  int64_t count_ = 0;
  int64_t slice_count_ = 0;
  double t_start_ = 0, slice_start_ = 0, t_end_ = 0;
  double measured_ = 0;   // seconds covered by recorded slices
  double overhead_ = 0;   // seconds spent in sync at slice ends
  bool started_ = false, finished_ = false;
  bool stable_ = false;
};

}  // namespace milabench
