// The summary window's state, defined once: whether the slices the summary
// averages (rates[-20:-2], measure/summary_window.hpp) hold only steady
// slices. The meter uses it to keep a run going past --max-count (the window
// rule, rate_meter.hpp) and the report to flag runs whose window is short or
// holds warm-up (report/run_series.hpp). Torch-free.
#pragma once
#include <cmath>
#include <vector>

namespace milabench {

struct WindowState {
  int slices = 0;          // rates recorded
  int window_begin = 0;    // index of the window's first slice: max(0, slices - 20)
  double warmup_s = NAN;   // steady_state's warm-up (NaN: the series is too short to tell)
  int warm_in_window = 0;  // warm-up slices inside the window
  bool too_short = false;  // fewer than 20 slices: the window has fewer than 18
  // The window's rate still rises: check_window's trend (beyond max_drift,
  // significant at trend_alpha) with a positive drift, a warm-up the
  // detector's band let through (a slow approach under noisy slices).
  bool rising = false;
  // The window holds only steady slices.
  bool clear() const { return !too_short && warm_in_window == 0 && !rising; }
};

// From a run's rates (slices of `sample_duration` seconds): warm-up by
// measure/steady_state's warmup_seconds, rising by its check_window.
WindowState summary_window_state(const std::vector<double>& rates, double sample_duration);
// The same from a known slice count and warm-up (seconds; NaN: unknown);
// rising is not known (false): the report words a trend itself.
WindowState summary_window_state(int slices, double warmup_s, double sample_duration);

}  // namespace milabench
