// Tests of src/measure/stats: distributions against independently computed
// values, interval coverage on seeded simulations, two-sample tests on
// known-equal and known-different samples.
#include "measure/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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

TEST(Bootstrap, SameInputSameInterval) {
  const std::vector<double> v = {10, 11, 9, 10.5, 9.5, 12};
  const Interval a = bootstrap_mean_ci(v), b = bootstrap_mean_ci(v);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_LT(a.lo, mean_of(v));
  EXPECT_GT(a.hi, mean_of(v));
}

TEST(Bootstrap, TooFewValuesGiveNoInterval) {
  EXPECT_FALSE(bootstrap_mean_ci({}).valid());
  EXPECT_FALSE(bootstrap_mean_ci({5}).valid());
  EXPECT_FALSE(bootstrap_mean_ci({5, NAN}).valid());
  EXPECT_FALSE(block_bootstrap_mean_ci({1, 2, 3, 4, 5}, 3).valid());
  EXPECT_FALSE(t_mean_ci(1, 5, 1).valid());
}

// The 95% interval of the mean covers the true mean in about 95% of
// simulated experiments (30 runs each; percentile bootstrap is a little
// narrow for small samples, so the band is 0.91-0.98).
TEST(Bootstrap, MeanIntervalCoversTrueMeanAtAboutStatedRate) {
  Rng gen(12345);
  const int trials = 400;
  int covered = 0, covered_t = 0;
  for (int t = 0; t < trials; ++t) {
    const auto v = normal_sample(gen, 30, 100.0, 5.0);
    const Interval ci = bootstrap_mean_ci(v, 0.95, 1000, 1000 + t);
    covered += ci.lo <= 100.0 && 100.0 <= ci.hi;
    const Interval ti = t_mean_ci(30, mean_of(v), sample_sd(v));
    covered_t += ti.lo <= 100.0 && 100.0 <= ti.hi;
  }
  const double rate = static_cast<double>(covered) / trials;
  EXPECT_GE(rate, 0.91);
  EXPECT_LE(rate, 0.98);
  const double rate_t = static_cast<double>(covered_t) / trials;
  EXPECT_GE(rate_t, 0.92);
  EXPECT_LE(rate_t, 0.98);
}

// Slices within a run are autocorrelated; blocks keep the interval honest.
// AR(1) series (phi 0.3) of 60 slices: coverage stays near 95%, where the
// plain bootstrap (blocks of 1) falls clearly short.
TEST(Bootstrap, BlockIntervalCoversMeanOfAutocorrelatedSeries) {
  Rng gen(777);
  const int trials = 200;
  int block_cov = 0, plain_cov = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(60);
    double e = 0;
    for (auto& x : v) {
      e = 0.3 * e + gen.normal();
      x = 50 + e;
    }
    const Interval b = block_bootstrap_mean_ci(v, 5, 0.95, 500, t);
    const Interval p = block_bootstrap_mean_ci(v, 1, 0.95, 500, t);
    block_cov += b.lo <= 50 && 50 <= b.hi;
    plain_cov += p.lo <= 50 && 50 <= p.hi;
  }
  EXPECT_GE(block_cov, trials * 0.86);
  EXPECT_LT(plain_cov, block_cov);
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
