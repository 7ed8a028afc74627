// Intervals whose coverage is measured (tests/core/coverage_sim_test.cpp,
// docs/statistics.md "Validation"): the per-test interval of perf (t on
// per-run values), the interval of a time-series mean with autocorrelated
// slices (AR(1) effective sample size), the Welch interval of a difference,
// robust spread (MAD) and the runs a comparison would need.
// Torch-free and deterministic like stats.hpp.
#pragma once
#include <cstddef>
#include <vector>

#include "measure/stats.hpp"

namespace milabench {

// Fewest finite values an interval is computed from; below it the report
// prints "too few runs" instead of an interval.
constexpr size_t kMinRunsForInterval = 2;

// Student t interval of the mean of independent values (runs):
// mean ± t(level, n-1) · sd/√n. Invalid below kMinRunsForInterval values.
Interval t_interval(const std::vector<double>& values, double level = 0.95);

// Lag-1 autocorrelation of a series, corrected for the downward bias of short
// series (Marriott-Pope: E[r] ≈ φ - (1+4φ)/n) and clamped to [0, 0.95]
// (negative correlation is treated as none, which only widens intervals).
// 0 when fewer than 4 finite values.
double lag1_autocorrelation(const std::vector<double>& series);

// Var(mean of n consecutive AR(1) values) / (σ²/n) for correlation phi:
// 1 + 2 Σ_{k<n} (1 - k/n) φ^k. 1 when phi is 0.
double ar1_variance_factor(double phi, size_t n);

// Var(least-squares slope of n consecutive AR(1) values against their
// index) / (σ²/Sxx) for correlation phi, exact for finite n:
// Σ_ij w_i w_j φ^|i-j| / Σ w_i², w_i = i - (n-1)/2. Tends to (1+φ)/(1-φ) as n
// grows (much less at short n: 5.54 instead of 9 at φ 0.8, n 32). 1 when phi
// is 0 or n < 3.
double ar1_slope_variance_factor(double phi, size_t n);

// Interval of the mean level of an autocorrelated series (the slices of one
// run): t interval with the AR(1) effective sample size n/f, the sample
// variance corrected for the same correlation, df = n/f - 1 (at least 1).
// Invalid below 4 finite values.
Interval series_mean_ci(const std::vector<double>& series, double level = 0.95);

// Robust standard deviation: 1.4826 · median |x - median| (the normal sd
// when the values are normal; one outlier barely moves it). NaN below 2 values.
double mad_sd(const std::vector<double>& values);

// Standard normal quantile (p in (0,1)); NaN outside.
double normal_quantile(double p);

// Gamma(shape, 1) draw (Marsaglia-Tsang), shape > 0.
double gamma_draw(Rng& rng, double shape);

// Interval of mean(a) - mean(b) from summary numbers (sample sds), Welch
// degrees of freedom. Invalid when either n < 2.
Interval welch_difference_ci(double n1, double mean1, double sd1, double n2, double mean2, double sd2,
                             double level = 0.95);

// Interval of the shift a - b that goes with Mann-Whitney's test (Hodges-
// Lehmann / Moses): the k+1-th smallest and k+1-th largest of the m·n
// differences a_i - b_j, k = floor(mn/2 - z·√(mn(m+n+1)/12) - 1/2) (normal
// approximation with continuity correction; exact for 5 vs 5). One hiccup
// run moves it little, unlike Welch's. Invalid when k < 0 (too few values
// for the level) or either side is empty.
Interval hodges_lehmann_ci(const std::vector<double>& a, const std::vector<double>& b, double level = 0.95);

// Runs per side a two-sided Welch test at alpha would need to find a
// difference of `delta` (fraction of the mean) with `power`, the run-to-run
// coefficient of variation being `cv` on both sides:
// n = 2 (t_{1-α/2} + t_power)² (cv/delta)², t at df = 2n - 2 (solved by
// iteration from the normal quantiles), at least 3. NaN when cv or delta is not positive.
double runs_needed(double cv, double delta, double alpha = 0.05, double power = 0.8);

// Where the interval of a difference lies against an equivalence margin ±m
// (same unit): beyond when it lies entirely above m or entirely below -m
// (a minimum-effect test), within when it lies inside [-m, m] (an
// equivalence test), else undecided. A 95% interval makes each a one-sided
// test at 2.5%. Undecided when the interval or the margin is not usable.
enum class MarginVerdict { beyond, within, undecided };
MarginVerdict against_margin(const Interval& diff, double margin);
const char* margin_verdict_name(MarginVerdict v);  // "beyond", "within", "undecided"

// Runs a side for a 95% interval of the difference to clear the margin's
// edge with 80% power, were the true difference the observed one:
// runs_needed(cv, | |diff| - margin |). NaN when that gap or cv is 0 or unknown.
double runs_to_decide_margin(double cv, double diff, double margin);

}  // namespace milabench
