// Seeded simulations of what the report prints (docs/statistics.md,
// "Validation"): each draws data with a known truth, runs the report's own
// code on it (t_interval, score_interval, check_window, build_report) and
// returns how often the printed figure was right. Deterministic: the same
// seed and trial count give the same rates on every platform. Core only.
#pragma once
#include <cstddef>
#include <cstdint>

#include "measure/stats.hpp"

namespace milabench::validation {

// Run-to-run noise shapes: normal, Laplace (excess kurtosis 3), Student t
// with 3 degrees of freedom (infinite kurtosis); each with unit variance.
enum class Shape { normal, laplace, t3 };
double noise(Rng& g, Shape s);
const char* shape_name(Shape s);

// Share of experiments whose per-test 95% interval (t over `runs` runs of
// 5% noise) holds the true mean.
double per_test_coverage(Shape s, size_t runs, int trials, uint64_t seed);

// Share of experiments whose score interval holds the true score
// exp(Σ w log(μ - σ) / Σ w): ten weighted tests (weights 1-8, means over
// three decades, noise 1-8%), `runs` runs each. `printed_inside`: share
// whose interval holds the printed (original formula's) score.
double score_coverage(Shape s, size_t runs, int trials, uint64_t seed, double* printed_inside = nullptr);

// Share of runs whose slice interval (series_mean_ci over the 18 window
// slices, AR(1) noise with correlation phi) holds the run's true level.
double slice_coverage(double phi, int trials, uint64_t seed);

// Share of runs check_window flags not steady: `slices` rates of 0.5 s with
// AR(1) noise (correlation phi, 5% marginal sd) around a level that changes
// by `trend` (fraction) per 10 s. trend 0: the false-flag rate; else power.
// `mean_span`: the mean number of slices the slope was fitted over.
double unsteady_rate(double phi, int slices, double trend, int trials, uint64_t seed, double* mean_span = nullptr);

// Share of runs check_window flags not steady when a warm-up precedes a
// flat rate: from 40% of the level, a step after 6 s (step true) or an
// exponential approach with a 3 s time constant; AR(1) noise as above. The
// warm-up is not a trend: every flag is a false one.
// trend_guard: SteadyOptions::trend_guard (negative: the default).
double warmup_flag_rate(double phi, int slices, bool step, int trials, uint64_t seed, int trend_guard = -1);

// The window rule (measure/window_rule.hpp) on runs whose --max-count is
// met after `count_slices` slices of 0.5 s: each closed slice it checks the
// summary window and goes on until clear (at most 120 slices, the 60 s of
// --max-extension). The rate: 1000/s times (1 - `approach` exp(-t / 8 s)),
// with AR(1) noise (correlation phi, 5% marginal sd); approach 0 is a flat
// run. Per rule: with the rising check (clear()) and without it (warm-up
// only, the rule before 2026-12-07).
struct WindowRuleEffect {
  double extended = 0, extended_warm_only = 0;  // share of runs extended
  double mean_s = 0, mean_s_warm_only = 0;      // mean extension, seconds (all runs)
  // Mean |window mean / true level at the window's end - 1|: the error of
  // the perf the summary takes.
  double error = 0, error_warm_only = 0;
};
WindowRuleEffect window_rule_effect(double phi, double approach, int count_slices, int trials, uint64_t seed);

// Verdict shares of `milarun report --compare` on one test whose true
// difference is `diff` (fraction; this side slower by it), 5% normal
// run-to-run noise, `runs` runs a side on one device. margin_pct NaN: the
// learned margin, pooled over a suite of ten such tests (the other nine
// equal on both sides); else --margin.
struct VerdictRates {
  double beyond = 0, within = 0, undecided = 0, significant = 0;
  double guess = 0;                                          // share whose learned margin is labelled a guess
  double margin_p10 = 0, margin_median = 0, margin_p90 = 0;  // margin printed, % (percentiles)
};
VerdictRates verdict_rates(double diff, size_t runs, double margin_pct, int trials, uint64_t seed);

}  // namespace milabench::validation
