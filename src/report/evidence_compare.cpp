// --compare verdicts: is the difference real (Welch's t), is it larger than
// what matters (the equivalence margin). docs/statistics.md §7-8.
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

void fill_significance(ReportRow& r, const json& entry, const json& base, double margin_pct,
                       const NoiseDeviations& suite_deviations) {
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
  // The interval that goes with the test: Hodges-Lehmann with Mann-Whitney
  // (one hiccup run barely moves it), else Welch's.
  const Interval d = r.sig.method == "mann-whitney (runs)" ? hodges_lehmann_ci(va, vb)
                                                           : welch_difference_ci(a.n, a.mean, a.sd, b.n, b.mean, b.sd);
  if (d.valid() && r.perf_base > 0) r.diff_ci_pct = {d.lo / r.perf_base * 100, d.hi / r.perf_base * 100};
  if (std::isfinite(margin_pct)) {
    r.noise_floor_pct = margin_pct;
    r.margin_source = "--margin";
  } else {
    const Margin m = learned_margin(entry, base, suite_deviations);
    r.noise_floor_pct = m.pct;
    r.margin_runs = m.runs;
    r.margin_source = m.source;
  }
  if (!std::isfinite(r.diff_pct)) return;  // nothing to compare: no verdict
  r.significant = std::isfinite(r.sig.p_value) && r.sig.p_value < kAlpha;
  // Does it matter: the 95% interval of the difference against ±margin. A
  // rank test that calls the difference not real overrides an interval
  // beyond the margin (the two disagree only near the edge): undecided.
  MarginVerdict mv = against_margin(r.diff_ci_pct, r.noise_floor_pct);
  if (!r.significant && mv == MarginVerdict::beyond) mv = MarginVerdict::undecided;
  r.matters = std::isfinite(r.noise_floor_pct) ? margin_verdict_name(mv) : "";
  const double cv = std::sqrt((a.sd * a.sd + b.sd * b.sd) / 2) / b.mean;
  if (mv == MarginVerdict::undecided && std::isfinite(r.noise_floor_pct)) {
    r.runs_needed = runs_to_decide_margin(cv, r.diff_pct / 100, r.noise_floor_pct / 100);
    if (std::isfinite(r.runs_needed)) r.runs_needed = std::max(r.runs_needed, std::max(a.n, b.n) + 1);
  }
  set_verdict(r, a.n, b.n);
}

namespace {
std::string runs_text(double runs) {
  return runs > 10000 ? "more than 10000 runs a side" : fmt::format("about {:.0f} runs a side", runs);
}

std::string verdict_text(ReportRow& r, double n_a, double n_b) {
  const double diff = std::fabs(r.diff_pct);
  const std::string margin = fmt::format("{:.1f}% margin", r.noise_floor_pct);
  if (r.significant) {
    r.verdict_kind = r.diff_pct > 0 ? "faster" : "slower";
    std::string v = fmt::format("{} by {:.1f}%", r.verdict_kind, diff);
    if (r.matters == "beyond" || r.matters == "within") return v + fmt::format(" ({} the {})", r.matters, margin);
    if (r.matters.empty()) return v;
    if (!std::isfinite(r.runs_needed)) return v + fmt::format(" (undecided against the {})", margin);
    return v + fmt::format(" (undecided against the {}; {} would decide)", margin, runs_text(r.runs_needed));
  }
  if (r.matters == "within") {
    r.verdict_kind = "same";
    return "same (within the " + margin + ")";
  }
  r.verdict_kind = "undecided";
  const std::string with =
      n_a >= 2 && n_b >= 2 ? "with these runs" : fmt::format("with {:.0f} vs {:.0f} runs", n_a, n_b);
  if (!std::isfinite(r.runs_needed)) {
    if (n_a >= 2 && n_b >= 2) return fmt::format("cannot decide {}", with);
    return fmt::format("cannot decide {}; repeat each side at least 3 times", with);
  }
  return fmt::format("cannot decide {}; {} would", with, runs_text(r.runs_needed));
}
}  // namespace

void set_verdict(ReportRow& r, double n_a, double n_b) { r.verdict = verdict_text(r, n_a, n_b); }

}  // namespace milabench
