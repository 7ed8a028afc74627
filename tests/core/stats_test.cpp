// Tests of src/measure/stats and stats_intervals: distributions against
// independently computed values, interval formulas, two-sample tests on
// known-equal and known-different samples. Coverage: coverage_sim_test.cpp.
#include "measure/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "measure/stats_intervals.hpp"

using namespace milabench;

namespace {
std::vector<double> normal_sample(Rng& rng, size_t n, double mean, double sd) {
  std::vector<double> v(n);
  for (auto& x : v) x = mean + sd * rng.normal();
  return v;
}
}  // namespace

TEST(Distributions, MatchIndependentValues) {
  EXPECT_NEAR(normal_cdf(1.959963985), 0.975, 1e-9);
  EXPECT_NEAR(normal_cdf(0), 0.5, 1e-12);
  // Reference values: Simpson integration of the t density (python, 2e5 steps).
  EXPECT_NEAR(student_t_cdf(2.228, 10), 0.9749941140914495, 1e-9);
  EXPECT_NEAR(student_t_cdf(1.5, 3.7), 0.8932009153989902, 1e-9);
  EXPECT_NEAR(student_t_cdf(-1.5, 3.7), 1 - 0.8932009153989902, 1e-9);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228138852, 1e-6);
  EXPECT_NEAR(incomplete_beta(2, 3, 0.4), 0.5248, 1e-12);  // closed form 1-(1-x)^4-4x(1-x)^3
  EXPECT_TRUE(std::isnan(student_t_cdf(1, 0)));
}

TEST(Rng, DeterministicAndUnbiasedEnough) {
  Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next(), b.next());
  Rng r(1);
  std::vector<int> counts(3, 0);
  for (int i = 0; i < 30000; ++i) counts[r.below(3)]++;
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
}

TEST(Intervals, TIntervalMatchesTheTextbookFormula) {
  const std::vector<double> v = {10, 11, 9, 10.5, 9.5, 12};
  const Interval i = t_interval(v);
  const double half = student_t_quantile(0.975, 5) * sample_sd(v) / std::sqrt(6.0);
  EXPECT_NEAR(i.lo, mean_of(v) - half, 1e-12);
  EXPECT_NEAR(i.hi, mean_of(v) + half, 1e-12);
  // Two runs: mean ± 12.706 · |a-b|/2 (t with 1 df), wide but honest.
  const Interval two = t_interval({100, 102});
  EXPECT_NEAR(two.hi - two.lo, 2 * 12.706204736 * 1.0, 1e-6);
}

TEST(Intervals, TooFewValuesGiveNoInterval) {
  EXPECT_FALSE(t_interval({}).valid());
  EXPECT_FALSE(t_interval({5}).valid());
  EXPECT_FALSE(t_interval({5, NAN}).valid());
  EXPECT_FALSE(series_mean_ci({1, 2, 3}).valid());
  EXPECT_FALSE(t_mean_ci(1, 5, 1).valid());
}

TEST(Intervals, AutocorrelationAndItsVarianceFactor) {
  EXPECT_DOUBLE_EQ(ar1_variance_factor(0, 18), 1);
  // 1 + 2 (1 - 1/3) 0.5 + 2 (1 - 2/3) 0.25 = 1.8333...
  EXPECT_NEAR(ar1_variance_factor(0.5, 3), 1 + 2.0 / 3 + 1.0 / 6, 1e-12);
  // Long AR(1) series: the estimate lands near the truth (bias-corrected).
  Rng g(3);
  std::vector<double> v(4000);
  double e = 0;
  for (auto& x : v) x = (e = 0.6 * e + g.normal());
  EXPECT_NEAR(lag1_autocorrelation(v), 0.6, 0.05);
  EXPECT_EQ(lag1_autocorrelation({1, 2}), 0);
  // Alternating values: negative correlation counts as none.
  EXPECT_EQ(lag1_autocorrelation({1, -1, 1, -1, 1, -1, 1, -1}), 0);
}

TEST(Intervals, MadIgnoresOneOutlierAndRunsNeededFollowsTheFormula) {
  EXPECT_NEAR(mad_sd({10, 11, 9, 10, 10.5, 9.5}), mad_sd({10, 11, 9, 10, 10.5, 1000}), 0.75);
  EXPECT_NEAR(sample_sd({10, 11, 9, 10, 10.5, 1000}), 404, 1);
  EXPECT_TRUE(std::isnan(mad_sd({1})));
  // Normal quantiles: 2 (1.95996 + 0.84162)^2 = 15.7; with t at df 32:
  // 2 (2.0369 + 0.8530)^2 = 16.7 -> 17.
  EXPECT_EQ(runs_needed(0.05, 0.05), 17);
  EXPECT_EQ(runs_needed(0.01, 0.5), 3);  // never below 3
  EXPECT_TRUE(std::isnan(runs_needed(0, 0.1)));
  EXPECT_NEAR(normal_quantile(0.975), 1.959963985, 1e-8);
}

// Exact finite-length factors, computed independently (Python, the double sum
// Σ_ij w_i w_j φ^|i-j| / Σ w_i²): far below the asymptotic (1+φ)/(1-φ) = 9
// at 32 slices, which made the old trend test lose power.
TEST(Intervals, SlopeVarianceFactorOfAr1NoiseAtFiniteLength) {
  EXPECT_EQ(ar1_slope_variance_factor(0, 32), 1);
  EXPECT_EQ(ar1_slope_variance_factor(0.8, 2), 1);
  EXPECT_NEAR(ar1_slope_variance_factor(0.8, 32), 5.538373074, 1e-8);
  EXPECT_NEAR(ar1_slope_variance_factor(0.5, 32), 2.627932551, 1e-8);
  EXPECT_NEAR(ar1_slope_variance_factor(0.8, 18), 3.713467564, 1e-8);
  EXPECT_NEAR(ar1_slope_variance_factor(0.8, 1000), 8.880009600, 1e-6);  // -> 9
  // Against the variance of fitted slopes of simulated AR(1) series.
  Rng g(12);
  const int n = 40, trials = 20000;
  double ss = 0;
  for (int t = 0; t < trials; ++t) {
    double e = g.normal(), sxy = 0, sxx = 0, ym = 0;
    std::vector<double> y(n);
    for (auto& v : y) v = (e = 0.6 * e + 0.8 * g.normal());
    for (double v : y) ym += v / n;
    for (int i = 0; i < n; ++i)
      sxy += (i - (n - 1) / 2.0) * (y[i] - ym), sxx += (i - (n - 1) / 2.0) * (i - (n - 1) / 2.0);
    ss += (sxy / sxx) * (sxy / sxx) * sxx;  // slope² · Sxx, σ² = 1
  }
  EXPECT_NEAR(ss / trials, ar1_slope_variance_factor(0.6, n), 0.1);
}

TEST(Intervals, HodgesLehmannIntervalOfAShiftIgnoresOneHiccup) {
  // 5 vs 5, shift -10: the 25 differences run -14..-6 (counts 1,2,3,4,5,4,3,2,1);
  // k = floor(12.5 - 1.96·4.787 - 0.5) = 2: the 3rd smallest and 3rd largest.
  const Interval d = hodges_lehmann_ci({1, 2, 3, 4, 5}, {11, 12, 13, 14, 15});
  EXPECT_EQ(d.lo, -13);
  EXPECT_EQ(d.hi, -7);
  // A 5% drop against a baseline with one 50% hiccup: Welch's interval is
  // widened by the hiccup, this one is not.
  Rng g(8);
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) a.push_back(950 * (1 + 0.01 * g.normal()));
  for (int i = 0; i < 29; ++i) b.push_back(1000 * (1 + 0.01 * g.normal()));
  b.push_back(500);
  const Interval hl = hodges_lehmann_ci(a, b);
  const Interval w = welch_difference_ci(30, mean_of(a), sample_sd(a), 30, mean_of(b), sample_sd(b));
  EXPECT_LT(hl.hi, -40);
  EXPECT_GT(hl.lo, -60);
  EXPECT_GT(w.hi - w.lo, 3 * (hl.hi - hl.lo));
  EXPECT_FALSE(hodges_lehmann_ci({1, 2}, {3, 4}).valid());  // too few values for 95%
  EXPECT_FALSE(hodges_lehmann_ci({}, {3, 4}).valid());
}

TEST(Intervals, AgainstMarginIsBeyondOrWithinOnlyWhenTheIntervalIsClearOfTheEdge) {
  EXPECT_EQ(against_margin({5.5, 9}, 5), MarginVerdict::beyond);
  EXPECT_EQ(against_margin({-9, -5.1}, 5), MarginVerdict::beyond);
  EXPECT_EQ(against_margin({-4, 4.9}, 5), MarginVerdict::within);
  EXPECT_EQ(against_margin({-5, 5}, 5), MarginVerdict::within);
  EXPECT_EQ(against_margin({1, 8}, 5), MarginVerdict::undecided);    // straddles +5
  EXPECT_EQ(against_margin({-8, -2}, 5), MarginVerdict::undecided);  // straddles -5
  EXPECT_EQ(against_margin({-8, 8}, 5), MarginVerdict::undecided);   // wider than the margin
  EXPECT_EQ(against_margin(no_interval(), 5), MarginVerdict::undecided);
  EXPECT_EQ(against_margin({1, 2}, NAN), MarginVerdict::undecided);
  EXPECT_EQ(against_margin({1, 2}, -1), MarginVerdict::undecided);
  EXPECT_STREQ(margin_verdict_name(MarginVerdict::beyond), "beyond");
  EXPECT_STREQ(margin_verdict_name(MarginVerdict::within), "within");
  EXPECT_STREQ(margin_verdict_name(MarginVerdict::undecided), "undecided");
  // The gap to the margin's edge decides: |3% - 5%| and |-7% + 5%| are both 2%.
  // Normal quantiles: 2 (1.96 + 0.84)^2 (0.05/0.02)^2 = 98.1 -> 99; with t
  // at df 196: 2 (1.9721 + 0.8433)^2 6.25 = 99.1 -> 100.
  EXPECT_EQ(runs_to_decide_margin(0.05, 0.03, 0.05), 100);
  EXPECT_EQ(runs_to_decide_margin(0.05, -0.07, 0.05), 100);
  EXPECT_TRUE(std::isnan(runs_to_decide_margin(0.05, 0.05, 0.05)));  // on the edge: no number of runs
  EXPECT_TRUE(std::isnan(runs_to_decide_margin(NAN, 0.03, 0.05)));
}

TEST(Intervals, WelchDifferenceIntervalAgreesWithTheTest) {
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {2, 4, 6, 8, 10};
  const Interval d = welch_difference_ci(5, mean_of(a), sample_sd(a), 5, mean_of(b), sample_sd(b));
  const TestResult t = welch_t(a, b);
  EXPECT_GT(t.p_value, 0.05);  // not significant ...
  EXPECT_LT(d.lo, 0);          // ... so the 95% interval holds 0
  EXPECT_GT(d.hi, 0);
  const Interval d90 = welch_difference_ci(5, mean_of(a), sample_sd(a), 5, mean_of(b), sample_sd(b), 0.90);
  EXPECT_GT(d90.lo, d.lo);
  EXPECT_NEAR(0.5 * (d.lo + d.hi), -3, 1e-12);
}

TEST(Intervals, GammaDrawsHaveTheRightMeanAndVariance) {
  Rng g(17);
  for (double k : {0.5, 1.0, 4.5}) {
    double s = 0, ss = 0;
    const int n = 40000;
    for (int i = 0; i < n; ++i) {
      const double x = gamma_draw(g, k);
      s += x;
      ss += x * x;
    }
    const double m = s / n;
    EXPECT_NEAR(m, k, 0.03 * k + 0.01) << k;
    EXPECT_NEAR(ss / n - m * m, k, 0.06 * k + 0.02) << k;
  }
}

TEST(MannWhitney, ExactPValuesOfSmallSamples) {
  TestResult r = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_EQ(r.statistic, 0);
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);  // 2 of C(6,3) = 20 orderings are as extreme
  EXPECT_DOUBLE_EQ(r.effect, -1);
  // Reference: enumeration of all C(11,5) orderings (python).
  r = mann_whitney_u({1.1, 2.2, 3.5, 7, 8}, {4, 5, 6, 9, 10, 11});
  EXPECT_EQ(r.statistic, 6);
  EXPECT_NEAR(r.p_value, 0.12554112554112554, 1e-12);
}

TEST(MannWhitney, TiesUseNormalApproximation) {
  TestResult r = mann_whitney_u({5, 5, 5}, {5, 5, 5});
  EXPECT_EQ(r.p_value, 1);
  r = mann_whitney_u({1, 1, 2, 2, 3, 3}, {4, 4, 5, 5, 6, 6});
  EXPECT_LT(r.p_value, 0.01);
  EXPECT_TRUE(std::isnan(mann_whitney_u({}, {1, 2}).p_value));
}

TEST(Welch, MatchesIndependentValue) {
  TestResult r = welch_t({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10});
  EXPECT_NEAR(r.statistic, -1.8973665961010275, 1e-12);
  EXPECT_NEAR(r.p_value, 0.10753119493063146, 1e-8);
  EXPECT_LT(r.effect, 0);
  EXPECT_EQ(welch_t(5, 1, 0, 5, 1, 0).p_value, 1);
  EXPECT_EQ(welch_t(5, 1, 0, 5, 2, 0).p_value, 0);
  EXPECT_TRUE(std::isnan(welch_t(1, 1, 0, 5, 2, 1).p_value));
}

// Same distribution on both sides: "significant" at 5% in about 5% of
// experiments. 1.5 sd apart with 10 runs a side: nearly always significant.
TEST(TwoSampleTests, FalsePositiveRateAndPowerOnGeneratedSamples) {
  Rng gen(4242);
  const int trials = 300;
  int fp_mw = 0, fp_w = 0, tp_mw = 0, tp_w = 0;
  for (int t = 0; t < trials; ++t) {
    const auto a = normal_sample(gen, 10, 100, 3), b = normal_sample(gen, 10, 100, 3);
    const auto c = normal_sample(gen, 10, 104.5, 3);
    fp_mw += mann_whitney_u(a, b).p_value < 0.05;
    fp_w += welch_t(a, b).p_value < 0.05;
    tp_mw += mann_whitney_u(a, c).p_value < 0.05;
    tp_w += welch_t(a, c).p_value < 0.05;
  }
  EXPECT_LE(fp_mw, trials * 0.09);
  EXPECT_LE(fp_w, trials * 0.09);
  EXPECT_GE(fp_w, trials * 0.02);
  EXPECT_GE(tp_mw, trials * 0.85);
  EXPECT_GE(tp_w, trials * 0.85);
}
