// Seeded simulations that measure what the report's intervals claim: that a
// 95% interval holds the true value in 93-97% of experiments. Normal and
// heavy-tailed runs (Laplace, Student t with 3 df), 2-30 runs per test,
// autocorrelated slices. Deterministic (fixed seeds, no clock); about 20 s of
// CPU in all. docs/statistics.md "Validation" quotes these figures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/stats.hpp"
#include "measure/stats_intervals.hpp"
#include "report/evidence.hpp"
#include "report/report_data.hpp"

using namespace milabench;
using nlohmann::json;

namespace {

enum class Shape { normal, laplace, t3 };

// Unit-variance noise of the given shape.
double noise(Rng& g, Shape s) {
  switch (s) {
    case Shape::normal:
      return g.normal();
    case Shape::laplace: {
      const double e = -std::log(std::max(g.uniform(), 1e-300));
      return (g.uniform() < 0.5 ? -e : e) / std::sqrt(2.0);
    }
    case Shape::t3:
      return g.normal() / std::sqrt(2 * gamma_draw(g, 1.5) / 3) / std::sqrt(3.0);
  }
  return 0;
}

const char* name(Shape s) { return s == Shape::normal ? "normal" : s == Shape::laplace ? "laplace" : "t3"; }

bool covers(const Interval& i, double truth) { return i.valid() && i.lo <= truth && truth <= i.hi; }

// Population sd (the original's std) of v.
double pop_sd(const std::vector<double>& v) {
  const double m = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size()));
}

// A summary entry with per-run values, as milarun summary writes it.
json entry_of(const std::vector<double>& v) {
  json runs = json::array();
  for (double x : v) runs.push_back({{"device", "0"}, {"perf", x}});
  const double n = static_cast<double>(v.size());
  return {{"n", n},
          {"failures", 0},
          {"train", {{"n", n}, {"mean", mean_of(v)}, {"std", pop_sd(v)}}},
          {"stats", {{"runs", runs}}}};
}

struct SuiteTest {
  double weight, mean, cv;
};

// Ten tests with weights 1-8, means over three decades, noise 1-8%.
std::vector<SuiteTest> suite() {
  std::vector<SuiteTest> t;
  Rng cfg(5);
  for (int i = 0; i < 10; ++i)
    t.push_back({1.0 + i % 8, 10 * std::pow(10, 3 * cfg.uniform()), 0.01 + 0.07 * cfg.uniform()});
  return t;
}

}  // namespace

// Per-test interval of perf (t over runs): 93-97% for every shape and n.
TEST(Coverage, PerTestIntervalHoldsTheTrueMeanAtItsStatedRate) {
  for (Shape s : {Shape::normal, Shape::laplace, Shape::t3})
    for (size_t n : {2, 3, 5, 8, 15, 30}) {
      Rng g(1000 + n);
      const int trials = 4000;
      int hit = 0;
      std::vector<double> v(n);
      for (int t = 0; t < trials; ++t) {
        for (auto& x : v) x = 100 + 5 * noise(g, s);
        hit += covers(t_interval(v), 100);
      }
      const double rate = static_cast<double>(hit) / trials;
      std::printf("coverage per-test %s n %zu: %.3f\n", name(s), n, rate);
      EXPECT_GE(rate, 0.93) << name(s) << " n " << n;
      EXPECT_LE(rate, 0.97) << name(s) << " n " << n;
    }
  EXPECT_FALSE(t_interval({100}).valid());  // one run: "too few runs"
}

// Interval of one run's level from its 18 window slices, AR(1) noise. The
// AR(1) correction keeps it near 95% up to φ 0.5; at φ 0.8 it holds about
// 90% (docs/statistics.md says so beside the slice column); a plain interval
// that ignores the correlation holds far less.
TEST(Coverage, SliceIntervalAllowsForAutocorrelation) {
  for (double phi : {0.0, 0.3, 0.5, 0.8}) {
    Rng g(7);
    const int trials = 4000;
    int hit = 0, naive = 0;
    std::vector<double> v(18);
    for (int t = 0; t < trials; ++t) {
      double e = g.normal();
      for (auto& x : v) {
        e = phi * e + std::sqrt(1 - phi * phi) * g.normal();
        x = 100 + 5 * e;
      }
      hit += covers(series_mean_ci(v), 100);
      naive += covers(t_interval(v), 100);
    }
    const double rate = static_cast<double>(hit) / trials;
    std::printf("coverage slices phi %.1f: %.3f (ignoring the correlation: %.3f)\n", phi, rate,
                static_cast<double>(naive) / trials);
    EXPECT_GE(rate, phi <= 0.5 ? 0.92 : 0.88) << "phi " << phi;
    EXPECT_LE(rate, 0.98) << "phi " << phi;
    if (phi >= 0.5) EXPECT_LT(naive, hit - trials / 20) << "phi " << phi;
  }
}

// Score interval: the score the original's formula gives with every test's
// true mean and sd, exp(Σ w log(μ - σ) / Σ w). Normal and Laplace runs:
// 93-97% over 3-30 runs per test (each n within 91.5-98%: 500 trials leave
// ±1% of sampling noise); t3 runs: at least 80%. Below 3 runs "too few runs".
TEST(Coverage, ScoreIntervalHoldsTheTrueScoreAtItsStatedRate) {
  const std::vector<SuiteTest> tests = suite();
  double sw = 0, swl = 0;
  for (const auto& t : tests) {
    sw += t.weight;
    swl += t.weight * std::log(t.mean * (1 - t.cv));
  }
  const double truth = std::exp(swl / sw);
  for (Shape s : {Shape::normal, Shape::laplace, Shape::t3}) {
    int hit_all = 0, trials_all = 0, point_inside = 0, point_trials = 0;
    for (size_t n : {3, 5, 8, 15, 30}) {
      Rng g(99 + n);
      const int trials = 500;
      int hit = 0;
      for (int trial = 0; trial < trials; ++trial) {
        json summary = json::object();
        std::vector<ReportRow> rows;
        for (size_t i = 0; i < tests.size(); ++i) {
          std::vector<double> v(n);
          for (auto& x : v) x = tests[i].mean * (1 + tests[i].cv * noise(g, s));
          const std::string test_name = "t" + std::to_string(i);
          summary[test_name] = entry_of(v);
          ReportRow r = make_row(test_name, summary[test_name]);
          r.weight = tests[i].weight;
          rows.push_back(r);
        }
        bool parametric = false;
        std::string note;
        const Interval ci = score_interval(rows, summary, parametric, note);
        hit += covers(ci, truth);
        point_inside += covers(ci, weighted_score(rows));
        ++point_trials;
      }
      const double rate = static_cast<double>(hit) / trials;
      std::printf("coverage score %s n %zu: %.3f\n", name(s), n, rate);
      // Student t with 3 df (infinite kurtosis): the spread's uncertainty is
      // underestimated from 8 runs on; docs/statistics.md states the shortfall.
      EXPECT_GE(rate, s == Shape::t3 ? 0.80 : 0.915) << name(s) << " n " << n;
      EXPECT_LE(rate, 0.98) << name(s) << " n " << n;
      hit_all += hit;
      trials_all += trials;
    }
    const double rate = static_cast<double>(hit_all) / trials_all;
    // The printed (original) score is biased up with few runs, but stays inside.
    std::printf("score %s: printed score inside the interval %.3f\n", name(s), 1.0 * point_inside / point_trials);
    EXPECT_GE(point_inside, point_trials * 0.98) << name(s);
    if (s == Shape::t3) continue;
    EXPECT_GE(rate, 0.93) << name(s);
    EXPECT_LE(rate, 0.97) << name(s);
  }
  // Two runs a test: no interval, and the note says why.
  json summary = {{"t0", entry_of({100, 104})}, {"t1", entry_of({50, 51, 49})}};
  std::vector<ReportRow> rows = {make_row("t0", summary["t0"]), make_row("t1", summary["t1"])};
  rows[0].weight = rows[1].weight = 1;
  bool parametric = true;
  std::string note;
  EXPECT_FALSE(score_interval(rows, summary, parametric, note).valid());
  EXPECT_EQ(note, "too few runs (t0 has 2; at least 3 runs per test are needed)");
}
