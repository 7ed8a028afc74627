// Steady state of a run's rate series (examples/s per slice of
// sample_duration seconds): how long the warm-up lasted, and whether the
// window the summary averages (rates[-20:-2], the last 10 s minus the last
// second) is steady. Used by the summary (flags) and by RateMeter
// (--until-stable). Torch-free; docs/statistics.md states the rules.
#pragma once
#include <string>
#include <vector>

#include "measure/summary_window.hpp"

namespace milabench {

struct SteadyOptions {
  double sample_duration = 0.5;  // seconds per slice
  // The summary window: rates[-window_slices - drop_last : -drop_last]
  // (measure/summary_window.hpp).
  int window_slices = kSummaryWindowSlices;
  int drop_last = kSummaryWindowDropLast;
  // Trend: the least-squares slope, times the window's length, may change
  // the rate by at most max_drift (fraction of the window's mean), unless the
  // slope is not distinguishable from noise: two-sided test at trend_alpha
  // whose standard error allows for the slices' AR(1) autocorrelation (exact
  // finite-length slope variance at the residuals' bias-corrected φ). The
  // slope is fitted over the last trend_slices slices ending with the
  // summary window when they all come after the warm-up (and trend_guard
  // slices more), else over the slices after that (at least the window): the longer the span, the
  // more power under autocorrelated noise (docs/statistics.md §4 gives the
  // power at φ 0, 0.5, 0.8 for 20, 30 and 60 s runs).
  double max_drift = 0.05;
  double trend_alpha = 0.04;
  int trend_slices = 120;
  // Slices after a detected warm-up the trend's span also leaves out: under
  // correlated noise the detector ends a gradual approach a little early, and
  // its tail fitted as a line is a false trend (30 s runs with a warm-up at
  // φ 0.8: 8.1-10.8% flagged without this guard, 2.9-3.4% with 8 slices).
  int trend_guard = 8;
  // Spread: the window's coefficient of variation (sample sd / mean) may be
  // at most max_cv.
  double max_cv = 0.10;
  // Warm-up: the run is warm from the first slice after which every mean of
  // `smooth` consecutive slices stays within max(band * level, 5 * se) of
  // the window's median level, se being the standard error of (mean of
  // `smooth` slices - window level) for AR(1) noise whose sd and lag-1
  // autocorrelation (bias-corrected, plus two standard errors) come from the
  // window's residuals around its least-squares line.
  double band = 0.05;
  int smooth = 4;
};

// Verdict on the summary window of one run.
struct WindowCheck {
  bool long_enough = false;    // the series has window_slices + drop_last rates
  bool steady = false;         // long_enough, no trend, spread within max_cv
  double mean = 0;             // window mean (the run's perf), examples/s
  double drift = 0;            // fitted slope * (window_slices - 1) / mean (signed)
  double trend_t = 0;          // slope / its autocorrelation-aware standard error
  double trend_p = 1;          // two-sided p of the slope (t with effective df)
  int trend_slices = 0;        // slices the slope was fitted over
  double autocorrelation = 0;  // bias-corrected lag-1 autocorrelation of the residuals
  double cv = 0;               // sample sd / mean
  std::string reason;          // empty when steady; else one short phrase
};

WindowCheck check_window(const std::vector<double>& rates, const SteadyOptions& opts = {});

// The --until-stable stopping rule: the summary window is steady
// (check_window) and the window_slices before it have a mean within
// max_drift of its mean, so a flat slow phase at the start (data loading,
// autotuning) cannot pass for the steady state. Needs
// 2 * window_slices + drop_last rates; false before that.
bool settled(const std::vector<double>& rates, const SteadyOptions& opts = {});

// Warm-up length in seconds: slices before the rate settled (see
// SteadyOptions::band), times sample_duration. NaN when the series is
// shorter than the window; 0 when it was steady from the start.
double warmup_seconds(const std::vector<double>& rates, const SteadyOptions& opts = {});

// The warm-up detector's tolerance for this series, as a fraction of the
// level: max(band, 5 * se / level). NaN when the series is too short.
double warmup_band(const std::vector<double>& rates, const SteadyOptions& opts = {});

}  // namespace milabench
