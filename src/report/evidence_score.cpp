// The interval of the suite score (docs/statistics.md §3): parametric
// bootstrap over each weighted test's mean and sd; coverage measured in
// tests/core/coverage_sim_test.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "measure/stats_intervals.hpp"
#include "report/evidence.hpp"
#include "report/evidence_json.hpp"

namespace milabench {
using nlohmann::json;
using namespace evidence_json;

namespace {
const char* const kScoreCoverage =
    "measured coverage 94.6-96.2% with normal runs (3-30 a test), 85.8-91.0% with heavy-tailed runs (Student t3, "
    "10-30 a test)";

struct ScoreTest {
  double weight, fail_factor;
  double n, mean, sd;  // sample sd
};

// Pooled excess kurtosis of the runs of `samples` (each standardised by its
// own mean and sd), plus 6/(n+1): standardising by a small sample's own
// moments pulls the kurtosis of normal values down by about that much.
// Clamped at 0 (lighter tails than normal are treated as normal). NaN when
// no sample has 4 or more runs.
double pooled_excess_kurtosis(const std::vector<std::vector<double>>& samples) {
  double s2 = 0, s4 = 0, count = 0, n_sum = 0;
  int groups = 0;
  for (const auto& v : samples) {
    if (v.size() < 4) continue;
    const double m = mean_of(v), sd = sample_sd(v);
    if (!(sd > 0)) continue;
    for (double x : v) {
      const double z = (x - m) / sd;
      s2 += z * z;
      s4 += z * z * z * z;
    }
    count += static_cast<double>(v.size());
    n_sum += static_cast<double>(v.size());
    ++groups;
  }
  if (groups == 0) return kNaN;
  const double m2 = s2 / count, n_mean = n_sum / groups;
  return std::max(0.0, (s4 / count) / (m2 * m2) - 3 + 6 / (n_mean + 1));
}
}  // namespace

Interval score_interval(const std::vector<ReportRow>& rows, const json& summary, bool& parametric, std::string& note) {
  std::vector<ScoreTest> tests;
  std::vector<std::vector<double>> samples;
  parametric = false;
  note.clear();
  for (const auto& r : rows) {
    if (!(std::isfinite(r.weight) && r.weight > 0 && std::isfinite(r.perf_adj) && r.perf_adj > 0)) continue;
    const json& entry = sub(summary, r.name.c_str());
    ScoreTest t{r.weight, 1 - r.fail / r.n, kNaN, kNaN, kNaN};
    const std::vector<double> v = run_values(entry);
    if (v.size() >= 2) {
      t.n = static_cast<double>(v.size());
      t.mean = mean_of(v);
      t.sd = sample_sd(v);
      samples.push_back(v);
    } else {
      const json& train = sub(entry, "train");
      t.n = num(train, "n");
      t.mean = num(train, "mean");
      t.sd = sample_sd_from_pop(t.n, num(train, "std"));
      parametric = true;
    }
    if (!(t.n >= kMinRunsForScore && std::isfinite(t.sd))) {
      note = fmt::format("too few runs ({} has {}; at least {:.0f} runs per test are needed)", r.name,
                         std::isfinite(t.n) ? fmt::format("{:.0f}", t.n) : "none", kMinRunsForScore);
      return no_interval();
    }
    tests.push_back(t);
  }
  if (tests.empty()) return no_interval();
  double kurtosis = pooled_excess_kurtosis(samples);
  if (!std::isfinite(kurtosis)) kurtosis = 0;
  // The measured coverage, printed beside the interval: bench/stats_validation
  // (docs/statistics.md "Validation"); its --check keeps the figures in band.
  note = fmt::format("parametric bootstrap of each test's mean and sd, weights fixed{}; {}",
                     parametric ? "; tests without per-run values use n/mean/std" : "", kScoreCoverage);
  std::vector<double> reps;
  Rng rng(kStatsSeed);
  for (int i = 0; i < 2000; ++i) {
    double sw = 0, swl = 0;
    bool positive = true;
    for (const auto& t : tests) {
      // sd² ~ sd_obs² · df / chi-square(df), df = 2 / (2/(n-1) + kurtosis/n):
      // Var(s²) = σ⁴ (2/(n-1) + κ/n) for any shape with excess kurtosis κ.
      const double df = 2 / (2 / (t.n - 1) + kurtosis / t.n);
      const double sd = t.sd * std::sqrt(df / (2 * gamma_draw(rng, df / 2)));
      const double mean = t.mean + sd / std::sqrt(t.n) * rng.normal();
      const double adj = (mean - sd) * t.fail_factor;  // the original's perf_adj with the true sd
      positive = positive && adj > 0;
      sw += t.weight;
      swl += t.weight * std::log(std::max(adj, 1e-300));
    }
    reps.push_back(positive ? std::exp(swl / sw) : 0.0);
  }
  std::sort(reps.begin(), reps.end());
  const Interval ci{quantile_sorted(reps, 0.025), quantile_sorted(reps, 0.975)};
  if (ci.lo == 0) note += "; lower end 0: a test's true sd may exceed its mean (perf_adj <= 0)";
  return ci;
}

}  // namespace milabench
