#include "sims.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/stats_intervals.hpp"
#include "measure/steady_state.hpp"
#include "measure/summary_window.hpp"
#include "measure/window_rule.hpp"
#include "report/evidence.hpp"
#include "report/report_data.hpp"

namespace milabench::validation {
using nlohmann::json;

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

const char* shape_name(Shape s) { return s == Shape::normal ? "normal" : s == Shape::laplace ? "laplace" : "t3"; }

namespace {
bool covers(const Interval& i, double truth) { return i.valid() && i.lo <= truth && truth <= i.hi; }

// A summary entry with per-run values on device "0", as milarun summary writes it.
json entry_of(const std::vector<double>& v) {
  json runs = json::array();
  const double m = mean_of(v), n = static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) {
    runs.push_back({{"device", "0"}, {"perf", x}});
    ss += (x - m) * (x - m);
  }
  return {{"n", n},
          {"failures", 0},
          {"train", {{"n", n}, {"mean", m}, {"std", std::sqrt(ss / n)}}},
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

double per_test_coverage(Shape s, size_t runs, int trials, uint64_t seed) {
  Rng g(seed);
  int hit = 0;
  std::vector<double> v(runs);
  for (int t = 0; t < trials; ++t) {
    for (auto& x : v) x = 100 + 5 * noise(g, s);
    hit += covers(t_interval(v), 100);
  }
  return static_cast<double>(hit) / trials;
}

double score_coverage(Shape s, size_t runs, int trials, uint64_t seed, double* printed_inside) {
  const std::vector<SuiteTest> tests = suite();
  double sw = 0, swl = 0;
  for (const auto& t : tests) {
    sw += t.weight;
    swl += t.weight * std::log(t.mean * (1 - t.cv));
  }
  const double truth = std::exp(swl / sw);
  Rng g(seed);
  int hit = 0, inside = 0;
  for (int trial = 0; trial < trials; ++trial) {
    json summary = json::object();
    std::vector<ReportRow> rows;
    for (size_t i = 0; i < tests.size(); ++i) {
      std::vector<double> v(runs);
      for (auto& x : v) x = tests[i].mean * (1 + tests[i].cv * noise(g, s));
      const std::string name = "t" + std::to_string(i);
      summary[name] = entry_of(v);
      ReportRow r = make_row(name, summary[name]);
      r.weight = tests[i].weight;
      rows.push_back(r);
    }
    bool parametric = false;
    std::string note;
    const Interval ci = score_interval(rows, summary, parametric, note);
    hit += covers(ci, truth);
    inside += covers(ci, weighted_score(rows));
  }
  if (printed_inside) *printed_inside = static_cast<double>(inside) / trials;
  return static_cast<double>(hit) / trials;
}

double slice_coverage(double phi, int trials, uint64_t seed) {
  Rng g(seed);
  int hit = 0;
  std::vector<double> v(18);
  for (int t = 0; t < trials; ++t) {
    double e = g.normal();
    for (auto& x : v) {
      e = phi * e + std::sqrt(1 - phi * phi) * g.normal();
      x = 100 + 5 * e;
    }
    hit += covers(series_mean_ci(v), 100);
  }
  return static_cast<double>(hit) / trials;
}

double unsteady_rate(double phi, int slices, double trend, int trials, uint64_t seed, double* mean_span) {
  Rng g(seed);
  int flagged = 0;
  double span = 0;
  const double innovation = std::sqrt(1 - phi * phi);
  std::vector<double> v(static_cast<size_t>(slices));
  for (int t = 0; t < trials; ++t) {
    double e = g.normal();
    for (int i = 0; i < slices; ++i) {
      e = phi * e + innovation * g.normal();
      v[static_cast<size_t>(i)] = 1000 * (1 + trend * (i - slices) / 20.0) * (1 + 0.05 * e);
    }
    const WindowCheck c = check_window(v);
    flagged += !c.steady;
    span += c.trend_slices;
  }
  if (mean_span) *mean_span = span / trials;
  return static_cast<double>(flagged) / trials;
}

double warmup_flag_rate(double phi, int slices, bool step, int trials, uint64_t seed, int trend_guard) {
  SteadyOptions o;
  if (trend_guard >= 0) o.trend_guard = trend_guard;
  Rng g(seed);
  int flagged = 0;
  const double innovation = std::sqrt(1 - phi * phi);
  std::vector<double> v(static_cast<size_t>(slices));
  for (int t = 0; t < trials; ++t) {
    double e = g.normal();
    for (int i = 0; i < slices; ++i) {
      e = phi * e + innovation * g.normal();
      const double shape = step ? (i < 12 ? 0.4 : 1.0) : 1 - 0.6 * std::exp(-i / 6.0);
      v[static_cast<size_t>(i)] = 1000 * shape * (1 + 0.05 * e);
    }
    flagged += !check_window(v, o).steady;
  }
  return static_cast<double>(flagged) / trials;
}

WindowRuleEffect window_rule_effect(double phi, double approach, int count_slices, int trials, uint64_t seed) {
  constexpr int kMaxExtension = 120;  // slices: --max-extension 60 s
  constexpr double kSliceSeconds = 0.5;
  Rng g(seed);
  WindowRuleEffect out;
  const double innovation = std::sqrt(1 - phi * phi);
  const auto level = [approach](int i) { return 1000 * (1 - approach * std::exp(-0.5 * (i + 1) / 8.0)); };
  std::vector<double> v;
  for (int t = 0; t < trials; ++t) {
    v.clear();
    double e = g.normal();
    for (int i = 0; i < count_slices + kMaxExtension; ++i) {
      e = phi * e + innovation * g.normal();
      v.push_back(level(i) * (1 + 0.05 * e));
    }
    // The slice count at which each rule stops.
    int stop = -1, stop_warm_only = -1;
    for (int k = count_slices; k <= count_slices + kMaxExtension && (stop < 0 || stop_warm_only < 0); ++k) {
      const WindowState w = summary_window_state(std::vector<double>(v.begin(), v.begin() + k), kSliceSeconds);
      if (stop < 0 && (w.clear() || k == count_slices + kMaxExtension)) stop = k;
      if (stop_warm_only < 0 && ((!w.too_short && w.warm_in_window == 0) || k == count_slices + kMaxExtension))
        stop_warm_only = k;
    }
    const auto error = [&](int k) {
      const std::vector<double> r(v.begin(), v.begin() + k);
      return std::fabs(summary_window_mean(r) / level(k - 1) - 1);
    };
    out.extended += stop > count_slices;
    out.extended_warm_only += stop_warm_only > count_slices;
    out.mean_s += (stop - count_slices) * kSliceSeconds;
    out.mean_s_warm_only += (stop_warm_only - count_slices) * kSliceSeconds;
    out.error += error(stop);
    out.error_warm_only += error(stop_warm_only);
  }
  for (double* x :
       {&out.extended, &out.extended_warm_only, &out.mean_s, &out.mean_s_warm_only, &out.error, &out.error_warm_only})
    *x /= trials;
  return out;
}

VerdictRates verdict_rates(double diff, size_t runs, double margin_pct, int trials, uint64_t seed) {
  Rng g(seed);
  VerdictRates out;
  std::vector<double> margins;
  for (int t = 0; t < trials; ++t) {
    json a = json::object(), b = json::object();
    for (int k = 0; k < 10; ++k) {
      std::vector<double> va(runs), vb(runs);
      for (auto& x : va) x = 1000 * (1 - (k == 0 ? diff : 0)) * (1 + 0.05 * g.normal());
      for (auto& x : vb) x = 1000 * (1 + 0.05 * g.normal());
      a["s.t" + std::to_string(k)] = entry_of(va);
      b["s.t" + std::to_string(k)] = entry_of(vb);
    }
    // build_report's wiring of one compared row (without the score interval,
    // which this simulation does not look at).
    ReportRow r = make_row("s.t0", a["s.t0"]);
    r.perf_base = make_row("s.t0", b["s.t0"]).perf;
    fill_significance(r, a["s.t0"], b["s.t0"], margin_pct, suite_noise_deviations(a, b));
    out.beyond += r.matters == "beyond";
    out.within += r.matters == "within";
    out.undecided += r.matters == "undecided";
    out.significant += r.significant;
    out.guess += r.margin_source.find("a guess") != std::string::npos;
    margins.push_back(r.noise_floor_pct);
  }
  for (double* x : {&out.beyond, &out.within, &out.undecided, &out.significant, &out.guess}) *x /= trials;
  std::sort(margins.begin(), margins.end());
  out.margin_p10 = quantile_sorted(margins, 0.1);
  out.margin_median = quantile_sorted(margins, 0.5);
  out.margin_p90 = quantile_sorted(margins, 0.9);
  return out;
}

}  // namespace milabench::validation
