// When a run's process was not running at all: stopped (SIGSTOP, Ctrl-Z,
// a debugger's stop), frozen (a cgroup freezer, `docker pause`, a
// scheduler's gang suspension) or not scheduled for a long time. The
// monitor's thread sleeps until its next sample; it wakes late only when
// nothing of the process ran, since a wake-up is scheduled within
// milliseconds even on a busy CPU. The time a block of the rate meter spans
// such a stop is timed as work, so its slices hold a rate the device never
// had (measure/rate_meter.hpp); the window rule waits the stop out of the
// summary window, and a run whose window still holds one is flagged
// (results/result_record.hpp). Torch-free; not thread-safe (the monitor
// guards it).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace milabench {

// A wake-up later than this (seconds) counts as time the process was stopped;
// below it, the delay is the scheduler's or the monitor's own sampling.
constexpr double kMinStoppedS = 0.25;

class StoppedTime {
 public:
  // The monitor's thread starts to wait for a wake-up due at `due` (clock
  // seconds).
  void waiting(double due) { due_ = due; }
  // It woke at `now`: a wake-up more than kMinStoppedS after the due time
  // records [due, now] as a stop. No effect when it was not waiting.
  void woke(double now);

  // Seconds of [t0, t1] the process was stopped: the recorded stops, and,
  // while the thread is waiting and `now` is over kMinStoppedS past its due
  // time, [due, now] (a stop that has just ended, before the thread ran).
  double seconds_between(double t0, double t1, double now) const;

  // {"episodes", "total_s", "longest_s", "window_s", "window_share"}: the
  // stops recorded, their sum and the longest (seconds); the seconds of
  // `window` they cover and that over the window's length (both null without
  // a window).
  nlohmann::json to_json(const std::optional<std::pair<double, double>>& window) const;

 private:
  std::vector<std::pair<double, double>> stops_;  // [start, end] clock seconds, in order
  std::optional<double> due_;
};

}  // namespace milabench
