// Tests of src/measure/steady_state and RateMeter's --until-stable: warm-up
// detection on generated series with known warm-ups, the steadiness verdict
// on the summary window, and a meter that stops once steady.
#include "measure/steady_state.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "measure/rate_meter.hpp"
#include "measure/stats.hpp"

using namespace milabench;

namespace {
// `warm` slices of warm-up (shape: 0 = step from 30% of level, 1 = linear
// ramp from 10%, 2 = exponential approach), then `steady` slices at `level`
// with relative noise `noise`.
std::vector<double> series(Rng& rng, int warm, int steady, double level, double noise, int shape) {
  std::vector<double> v;
  for (int i = 0; i < warm; ++i) {
    const double f = shape == 0 ? 0.3 : shape == 1 ? 0.1 + 0.9 * i / warm : 1 - 0.8 * std::exp(-4.0 * i / warm);
    v.push_back(level * f * (1 + noise * rng.normal()));
  }
  for (int i = 0; i < steady; ++i) v.push_back(level * (1 + noise * rng.normal()));
  return v;
}
}  // namespace

// A fast run stopped early: 3 s at 96/s then 1000/s, 20 slices. Noise taken
// from the whole window's line would be the step itself, wide enough to call
// the 6 slow slices noise.
TEST(Warmup, AWarmUpInsideTheWindowIsNotTakenForNoise) {
  std::vector<double> rates(6, 96.0);
  rates.resize(20, 1000.0);
  EXPECT_DOUBLE_EQ(warmup_seconds(rates), 3.0);
  for (size_t i = 6; i < rates.size(); ++i) rates[i] *= 1 + 0.02 * ((i % 3) - 1.0);  // with 2% noise
  EXPECT_DOUBLE_EQ(warmup_seconds(rates), 3.0);
}

TEST(Warmup, FoundWithinOneSecondOnGeneratedSeries) {
  Rng rng(99);
  int checked = 0;
  for (int shape = 0; shape < 3; ++shape)
    for (int warm : {0, 4, 10, 30})
      for (double noise : {0.0, 0.01, 0.03}) {
        for (int rep = 0; rep < 5; ++rep) {
          const auto v = series(rng, warm, 60, 1000, noise, shape);
          const double w = warmup_seconds(v);
          // Truth: the first slice whose noiseless rate is within the
          // detector's band for this series: max(5%, 5 standard errors of a
          // 2 s mean against the level, autocorrelation allowed for).
          const double band = warmup_band(v);
          EXPECT_GE(band, 0.05);
          int first = 0;
          while (first < warm && (shape == 0 || (shape == 1 ? 0.1 + 0.9 * first / warm
                                                            : 1 - 0.8 * std::exp(-4.0 * first / warm)) < 1 - band))
            ++first;
          EXPECT_NEAR(w, first * 0.5, 1.0) << "shape " << shape << " warm " << warm << " noise " << noise;
          ++checked;
        }
      }
  EXPECT_EQ(checked, 180);
}

TEST(Warmup, TooShortSeriesIsUnknown) {
  EXPECT_TRUE(std::isnan(warmup_seconds(std::vector<double>(19, 5.0))));
  EXPECT_EQ(warmup_seconds(std::vector<double>(20, 5.0)), 0.0);
}

TEST(Window, SteadyNoisySeriesPasses) {
  Rng rng(5);
  int steady = 0;
  for (int i = 0; i < 200; ++i) steady += check_window(series(rng, 10, 40, 500, 0.04, 1)).steady;
  EXPECT_GE(steady, 196);  // a 4% noise series is steady (rare false alarms only)
}

TEST(Window, TrendIsFlagged) {
  std::vector<double> v;
  for (int i = 0; i < 40; ++i) v.push_back(1000 * (1 + 0.006 * i));  // +10% over the window
  const WindowCheck c = check_window(v);
  EXPECT_TRUE(c.long_enough);
  EXPECT_FALSE(c.steady);
  EXPECT_NEAR(c.drift, 0.006 * 17 * 1000 / c.mean, 1e-9);
  EXPECT_NE(c.reason.find("trend"), std::string::npos);
}

TEST(Window, SpreadIsFlagged) {
  std::vector<double> v;
  for (int i = 0; i < 40; ++i) v.push_back(i % 2 ? 1300 : 700);
  const WindowCheck c = check_window(v);
  EXPECT_FALSE(c.steady);
  EXPECT_NE(c.reason.find("spread"), std::string::npos);
}

TEST(Window, ShortOrBrokenSeriesIsNotSteady) {
  WindowCheck c = check_window(std::vector<double>(10, 5.0));
  EXPECT_FALSE(c.long_enough);
  EXPECT_FALSE(c.steady);
  EXPECT_NE(c.reason.find("window"), std::string::npos);
  std::vector<double> v(30, 5.0);
  v[20] = NAN;
  EXPECT_FALSE(check_window(v).steady);
  EXPECT_FALSE(check_window(std::vector<double>(30, 0.0)).steady);
  EXPECT_TRUE(check_window(std::vector<double>(30, 5.0)).steady);
}

TEST(RateMeter, UntilStableStopsOnceTheWindowIsSteady) {
  double t = 0;
  MeterOptions o;
  o.max_count = 1000000000;
  o.until_stable = true;
  RateMeter m(
      o, [&t] { return t; }, nullptr);
  m.start();
  // 10 s of warm-up at 80/s then 800/s; steps of 0.125 s (exact in binary).
  int steps = 0;
  while (!m.done() && steps < 100000) {
    t += 0.125;
    m.step(t <= 10.0 ? 10 : 100);
    ++steps;
  }
  EXPECT_TRUE(m.stopped_stable());
  // 20 flat warm-up slices look steady on their own (rates 0-17 at 80/s);
  // the stop waits until the window and the 18 slices before it agree.
  EXPECT_GE(m.rates().size(), 56u);
  EXPECT_LE(m.rates().size(), 58u);
  const WindowCheck c = check_window(m.rates());
  EXPECT_TRUE(c.steady);
  EXPECT_DOUBLE_EQ(c.mean, 800.0);
  const auto j = m.to_json();
  EXPECT_EQ(j["until_stable"], true);
  EXPECT_EQ(j["stopped_stable"], true);
}

TEST(Settled, NeedsTwoAgreeingWindows) {
  std::vector<double> flat(38, 100.0);
  EXPECT_TRUE(settled(flat));
  flat.pop_back();
  EXPECT_FALSE(settled(flat));  // shorter than two windows + 2
  std::vector<double> jump(20, 10.0);
  jump.resize(40, 100.0);
  EXPECT_TRUE(check_window(jump).steady);
  EXPECT_FALSE(settled(jump));
}

TEST(RateMeter, WithoutUntilStableRunsToMaxCount) {
  double t = 0;
  MeterOptions o;
  o.max_count = 50000;
  RateMeter m(
      o, [&t] { return t; }, nullptr);
  m.start();
  while (!m.done()) {
    t += 0.1;
    m.step(100);
  }
  EXPECT_EQ(m.count(), 50000);
  EXPECT_FALSE(m.stopped_stable());
  EXPECT_EQ(m.to_json()["until_stable"], false);
}

TEST(RateMeter, UntilStableNeverSteadyStillStopsAtMaxCount) {
  double t = 0;
  MeterOptions o;
  o.max_count = 20000;
  o.until_stable = true;
  o.window_rule = false;  // the count alone ends it
  RateMeter m(
      o, [&t] { return t; }, nullptr);
  m.start();
  int i = 0;
  while (!m.done()) {
    t += 0.1;
    m.step(++i % 10 < 5 ? 10 : 200);  // rate swings by 20x every half second
  }
  EXPECT_GE(m.count(), 20000);
  EXPECT_FALSE(m.stopped_stable());
}

// The rates docs/statistics.md quotes. Flat runs with AR(1) slices (φ 0.8,
// 5% noise): at most 5% flagged unsteady, at most 5% given a warm-up of more
// than 1 s. A +10% per 10 s trend under 6% independent noise, 20 s runs: the
// trend span grows past the window (up to 60 s, after the warm-up) and finds it at least 80% of the time either way.
TEST(Window, AutocorrelatedFlatRunsAreRarelyFlaggedAndTrendsAreFound) {
  const int trials = 2000;
  for (int len : {40, 60}) {
    Rng g(3);
    int unsteady = 0, warm = 0;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> v(static_cast<size_t>(len));
      double e = g.normal();
      for (auto& x : v) {
        e = 0.8 * e + 0.6 * g.normal();
        x = 1000 * (1 + 0.05 * e);
      }
      unsteady += !check_window(v).steady;
      warm += warmup_seconds(v) > 1.0;
    }
    std::printf("flat AR(1) 0.8, %d slices: unsteady %.3f, warm-up > 1 s %.3f\n", len, 1.0 * unsteady / trials,
                1.0 * warm / trials);
    EXPECT_LE(unsteady, trials * 0.05) << len;
    EXPECT_LE(warm, trials * 0.05) << len;
  }
  for (double sign : {1.0, -1.0}) {
    Rng g(4);
    int found = 0, found_window_only = 0;
    SteadyOptions window_only;
    window_only.trend_slices = window_only.window_slices;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> v(40);
      for (size_t i = 0; i < v.size(); ++i) v[i] = 1000 * (1 + sign * 0.005 * (i - 40.0)) * (1 + 0.06 * g.normal());
      found += !check_window(v).steady;
      found_window_only += !check_window(v, window_only).steady;
    }
    std::printf("trend %+.0f%% per 10 s, 6%% noise: found %.3f over the trend span, %.3f over the 9 s window\n",
                sign * 10, 1.0 * found / trials, 1.0 * found_window_only / trials);
    EXPECT_GE(found, trials * 0.80) << sign;
    EXPECT_LT(found_window_only, trials * 0.5) << sign;  // why the span lengthens
  }
}
