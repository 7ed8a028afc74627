// RateMeter: examples/second in slices of `sample_duration` seconds, with the
// arithmetic of the original milabench's RateLogger (milarun/lib/experiment.py,
// docs/fidelity.md "Measurement"). Torch-free.
//
// Timed blocks: begin() opens a block (the original's `with wrapper():`
// entry), step(n) closes it and counts n examples. A step() with no begin()
// since the previous step() closes a block that began when that previous
// step() returned; time between a step() and a later begin() is not timed.
// Each closed block is passed to elapse(duration, n) exactly as RateLogger:
// the slice's time and count carry over, a block longer than a slice fills
// every slice it spans, and the device is synchronised only when the block
// would close a slice. finish() is RateLogger.finalize (sync, then the partial
// last slice is appended).
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "measure/steady_state.hpp"

namespace milabench {

struct MeterOptions {
  double sample_duration = 0.5;  // seconds per slice
  int64_t max_count = 0;         // stop after this many examples (0 = never)
  // --min-duration: also keep going until this many seconds were timed
  // (time(), the sum of the timed blocks); 0 = no minimum.
  double min_duration = 0;
  // --until-stable: also stop as soon as the rates recorded so far have
  // settled (steady_state.hpp: the summary window is steady and agrees with
  // the window before it); max_count still bounds the run.
  bool until_stable = false;
  // The window rule (default on; --stop-at-count turns it off, the
  // original's stop): once --max-count is reached (and --min-duration
  // timed), the run goes on until its summary window holds only steady
  // slices (measure/window_rule.hpp: 20 slices, the warm-up over before the
  // window and its rate no longer rising), for at most `max_extension` more
  // timed seconds. On a fast GPU
  // the original's counts end some runs within seconds, while set-up and
  // warm-up still fill the window.
  bool window_rule = true;
  double max_extension = 60;
  SteadyOptions steady;
};

class RateMeter {
 public:
  using Clock = std::function<double()>;  // monotonic seconds
  using Sync = std::function<void()>;     // waits for the device; may be empty

  RateMeter(MeterOptions opts, Clock clock, Sync sync);

  // Opens a timed block now (no effect when one is open). The run's clock
  // (wall_time) starts at the first block.
  void begin();
  // Same as begin(); the name the harness uses before the first iteration.
  void start() { begin(); }
  // The harness calls it when it hands control to the workload: a first
  // step() with no begin() before it times its block from here (set-up
  // included, as before workloads marked their blocks). Once a workload
  // calls begin() first, this time is not used.
  void arm();
  // Closes the current block (see above) with n examples. Returns true when
  // at least one slice closed here.
  bool step(int64_t n);
  // Whether a block that would close a slice syncs the device first (the
  // original's `sync=` argument: torch_settings.sync or None). Default true.
  void set_sync_enabled(bool on) { sync_enabled_ = on; }
  // Seconds of [t0, t1] (the meter's clock) the process was stopped, not
  // running at all (monitor/stopped_time.hpp; the harness passes the
  // monitor's). A block that spans a stop is timed as work, so its slices
  // understate the device: a summary window that holds such time is not
  // clear for the window rule, nor settled for --until-stable. Without a
  // probe no stop is known.
  using StoppedProbe = std::function<double(double t0, double t1)>;
  void set_stopped_probe(StoppedProbe probe) { stopped_probe_ = std::move(probe); }
  // RateLogger.done(): count() >= max_count (when max_count > 0), at least
  // min_duration seconds timed and, under the window rule, the summary
  // window clear of warm-up (or max_extension spent); or, with
  // until_stable, a closed slice made the summary window steady.
  bool done() const;
  // Timed seconds and examples after the count (and --min-duration) was
  // reached, spent by the window rule; 0 when it did not extend the run.
  double extended_time() const;
  int64_t extended_count() const;
  // True when until_stable ended the run.
  bool stopped_stable() const { return stable_; }
  // RateLogger.finalize: syncs (timed as a block of 0 examples), appends the
  // partial last slice when it has time. Idempotent; no step() after it.
  void finish();

  const MeterOptions& options() const { return opts_; }
  int64_t count() const { return total_count_; }
  const std::vector<double>& rates() const { return rates_; }
  // Rate of the last closed slice (0 before the first).
  double last_rate() const { return rates_.empty() ? 0.0 : rates_.back(); }
  // Sum of the timed blocks (RateLogger.total_time), seconds.
  double time() const { return total_time_; }
  // From the first block's start to the last block's end, seconds (0 before).
  double wall_time() const { return started_ && ended_ ? end_ - start_ : 0.0; }
  // Clock value at the first block's start and the last block's end.
  double first_start() const { return start_; }
  double last_end() const { return end_; }
  bool started() const { return started_; }
  // The summary window (measure/summary_window.hpp) on the meter's clock:
  // from the end of the slice before its first one (the first block's start
  // for slice 0) to the end of its last slice; the whole run when the window
  // is empty (fewer than 3 slices). nullopt before any slice. A slice ends
  // where its time ran out inside the block that closed it, so the slices a
  // long block fills share that block's time in order. What the monitor
  // checks for other processes on the run's CPUs and for stops.
  std::optional<std::pair<double, double>> window_span() const;
  // The caller's own work since the last step() (reading a loss, progress)
  // is not timed: an implicit next block starts now, not at that step().
  void exclude_since_step();

  // {"rates", "count", "time", "wall_time", "overhead" (= wall_time - time),
  //  "sample_duration", "max_count", "min_duration", "until_stable",
  //  "stopped_stable", "window_rule", "extended_s", "extended_count"}; the
  //  harness adds type/start/end/metrics.
  nlohmann::json to_json() const;

 private:
  void elapse(double duration, double count);  // RateLogger.elapse
  bool would_log(double duration) const { return current_ + duration >= opts_.sample_duration; }
  bool stopped_in_window() const;

  MeterOptions opts_;
  Clock clock_;
  Sync sync_;
  bool sync_enabled_ = true;
  StoppedProbe stopped_probe_;
  std::vector<double> rates_;
  std::vector<double> slice_ends_;  // clock value where each slice's time ran out
  double current_ = 0;              // seconds in the open slice
  double slice_count_ = 0;          // examples in the open slice (fractional after a carry)
  int64_t total_count_ = 0;
  double total_time_ = 0;
  double start_ = 0, end_ = 0;
  double block_start_ = 0, last_return_ = 0;
  bool started_ = false, ended_ = false, block_open_ = false, finished_ = false, armed_ = false;
  bool stable_ = false;
  size_t slices_closed_ = 0;
  // The window rule: when the count condition was first met (-1: not yet),
  // and whether the summary window was clear at the last check.
  double count_met_time_ = -1;
  int64_t count_met_count_ = 0;
  bool window_clear_ = false;
  void update_window_rule(bool slice_closed);
};

}  // namespace milabench
