// --compare verdicts: is the difference real (Welch's t), is it larger than
// what matters (the equivalence margin). docs/statistics.md §7-8.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "measure/stats_intervals.hpp"
#include "report/evidence.hpp"
#include "report/evidence_json.hpp"

namespace milabench {
using nlohmann::json;
using namespace evidence_json;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kAlpha = 0.05;  // significance level of --compare
// Mann-Whitney's smallest two-sided p is 2/C(2n, n): 0.33, 0.1, 0.029, 0.0079
// at 2-5 runs a side. From 5 a side it can reach p < 0.05 with room, and a
// rank test is not thrown by one hiccup run; below, Welch's t decides.
const size_t kMinRunsForRankTest = 5;

// n, mean and sample sd of one side: per-run values when there are 2 or
// more, else the summary's train {n, mean, std}.
struct Side {
  double n = kNaN, mean = kNaN, sd = kNaN;
  bool per_run = false;
};

Side side_of(const json& entry) {
  Side s;
  const std::vector<double> v = run_values(entry);
  if (v.size() >= 2) {
    s = {static_cast<double>(v.size()), mean_of(v), sample_sd(v), true};
    return s;
  }
  const json& train = sub(entry, "train");
  s.n = num(train, "n");
  s.mean = num(train, "mean");
  s.sd = sample_sd_from_pop(s.n, num(train, "std"));
  return s;
}
}  // namespace

RobustNoise robust_noise(const json& entry) {
  std::map<std::string, std::vector<double>> by_device;
  std::vector<double> all;
  for (const auto& [dev, p] : device_runs(entry)) {
    by_device[dev].push_back(p);
    all.push_back(p);
  }
  // Deviations from each device's median, scaled by sqrt(k/(k-1)) for a
  // group of k (a median of few values sits closer to them than the truth).
  std::vector<double> dev;
  for (const auto& [d, v] : by_device) {
    if (v.size() < 2) continue;
    const double med = median_of(v), k = static_cast<double>(v.size());
    for (double x : v) dev.push_back((x - med) * std::sqrt(k / (k - 1)));
  }
  const double level = median_of(all);
  if (dev.size() >= 2 && level > 0) {
    std::vector<double> abs_dev;
    for (double x : dev) abs_dev.push_back(std::fabs(x));
    return {1.4826 * median_of(abs_dev) / level, "MAD of repeats"};
  }
  if (all.size() >= 2 && level > 0) return {mad_sd(all) / level, "MAD across copies"};
  const double sd = noise_fraction(entry);
  if (std::isfinite(sd)) return {sd, "sd of repeats (no per-run values)"};
  return {kNaN, ""};
}

void fill_significance(ReportRow& r, const json& entry, const json& base, double margin_pct) {
  const Side a = side_of(entry), b = side_of(base);
  r.diff_pct = (r.perf / r.perf_base - 1) * 100;
  const std::vector<double> va = run_values(entry), vb = run_values(base);
  if (std::min(va.size(), vb.size()) >= kMinRunsForRankTest) {
    r.sig = mann_whitney_u(va, vb);
    r.sig.method = "mann-whitney (runs)";
  } else {
    r.sig = welch_t(a.n, a.mean, a.sd, b.n, b.mean, b.sd);
    r.sig.method = a.per_run && b.per_run ? "welch (runs)" : "welch (n/mean/std)";
  }
  const Interval d = welch_difference_ci(a.n, a.mean, a.sd, b.n, b.mean, b.sd);
  if (d.valid() && r.perf_base > 0) r.diff_ci_pct = {d.lo / r.perf_base * 100, d.hi / r.perf_base * 100};
  if (std::isfinite(margin_pct)) {
    r.noise_floor_pct = margin_pct;
    r.margin_source = "--margin";
  } else {
    const RobustNoise na = robust_noise(entry), nb = robust_noise(base);
    const bool use_a = std::isfinite(na.cv) && !(nb.cv > na.cv);
    const RobustNoise& m = use_a ? na : nb;
    r.noise_floor_pct = m.cv * 100;
    r.margin_source = m.source;
  }
  if (!std::isfinite(r.diff_pct)) return;  // nothing to compare: no verdict
  const double diff = std::fabs(r.diff_pct), margin = r.noise_floor_pct;
  const std::string margin_text = std::isfinite(margin) ? fmt::format("{:.1f}% margin", margin) : "";
  r.significant = std::isfinite(r.sig.p_value) && r.sig.p_value < kAlpha;
  if (r.significant) {
    r.verdict_kind = r.diff_pct > 0 ? "faster" : "slower";
    r.verdict = fmt::format("{} by {:.1f}%", r.verdict_kind, diff);
    if (!margin_text.empty())
      r.verdict += fmt::format(" ({} the {})", diff <= margin ? "within" : "beyond", margin_text);
    return;
  }
  // Equivalence (two one-sided tests at 5%): the 90% interval of the
  // difference lies inside ±margin.
  const Interval d90 = welch_difference_ci(a.n, a.mean, a.sd, b.n, b.mean, b.sd, 0.90);
  if (d90.valid() && margin >= 0 && r.perf_base > 0 && std::fabs(d90.lo) / r.perf_base * 100 <= margin &&
      std::fabs(d90.hi) / r.perf_base * 100 <= margin) {
    r.verdict_kind = "same";
    r.verdict = "same (within the " + margin_text + ")";
    return;
  }
  r.verdict_kind = "undecided";
  // Runs a side for 80% power at the larger of the observed difference and the margin.
  const double cv = std::sqrt((a.sd * a.sd + b.sd * b.sd) / 2) / b.mean;
  const double delta = std::max(diff, std::isfinite(margin) ? margin : 0.0) / 100;
  r.runs_needed = runs_needed(cv, delta);
  if (std::isfinite(r.runs_needed)) r.runs_needed = std::max(r.runs_needed, std::max(a.n, b.n) + 1);
  const std::string with =
      a.n >= 2 && b.n >= 2 ? "with these runs" : fmt::format("with {:.0f} vs {:.0f} runs", a.n, b.n);
  if (!std::isfinite(r.runs_needed))
    r.verdict = fmt::format("cannot decide {}; repeat each side at least 3 times", with);
  else if (r.runs_needed > 10000)
    r.verdict = fmt::format("cannot decide {}; more than 10000 runs a side would be needed", with);
  else
    r.verdict = fmt::format("cannot decide {}; about {:.0f} runs a side would", with, r.runs_needed);
}

}  // namespace milabench
