// The numbers of a report (table rows, scores, per-GPU ratios), computed
// once and rendered as text (report.cpp) or HTML (html.cpp).
#pragma once
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/stats.hpp"
#include "report/model_figures.hpp"
#include "report/run_series.hpp"
#include "report/trend.hpp"

namespace milabench {

// One test. Missing values are NaN (e.g. perf when every run failed).
struct ReportRow {
  std::string name;
  std::string count_unit;  // what perf counts per second ("images"); "" when no result or summary records it
  double weight = 0;       // NaN when a weights file is given and lacks the test
  double n = 0, fail = 0;
  double perf = 0;     // train.mean, examples/s
  double std = 0;      // train.std, examples/s
  double std_pct = 0;  // train.std / train.mean * 100
  // (1 - fail/n) * (perf - min(std, perf)): report.py's perf_adj with the variance penalty
  double perf_adj = 0;
  // With compare: perf_base_adj = perf_base - min(std_base, perf_base) (report.py: no failure factor).
  double perf_base = 0, perf_ratio = 0, perf_base_adj = 0, perf_ratio_adj = 0;
  // 95% interval of perf_ratio (with compare): each side's CI as a relative
  // half-width on the log scale, the two combined in quadrature.
  Interval ratio_ci = no_interval();
  // Opt-in shortcuts some of its runs used (less work than the original:
  // docs/fidelity.md), from the summary's inventory; empty when none.
  std::vector<std::string> shortcuts;
  // Stand-ins some of its runs used (a different environment or data than
  // the original's: results/stand_ins.hpp), from the summary's inventory;
  // with compare, the baseline's too (report/marks.hpp words them).
  std::vector<std::string> stand_ins, base_stand_ins;
  std::vector<std::string> base_shortcuts;  // with compare: the baseline's shortcuts
  // The distinct argument lists of its runs (summary "arguments"), each
  // joined by spaces, sorted; with compare, the baseline's. Empty when the
  // summary has none (the 2020 baselines).
  std::vector<std::string> arguments, base_arguments;
  int window_flags = 0;    // runs whose summary window is short or holds warm-up (results directory only)
  int contended_runs = 0;  // runs that shared their devices in their window (summary "contended_runs")
  std::vector<std::string> mixed_setups;  // set-up keys its runs differ on (summary "mixed_setups")
  // Mean over runs whose power was measured (summary "energy"); NaN otherwise.
  double joules_per_example = 0, examples_per_watt = 0;
  ModelFigures model;  // MFU and peak memory (summary "model"; report/model_figures.hpp)

  // Evidence beside the original numbers (evidence.hpp); NaN / empty when unknown.
  Interval ci = no_interval();  // 95% CI of perf (t interval over runs; coverage in docs/statistics.md)
  std::string ci_method;        // "t" (per-run values), "t (n/mean/std)", or "too few runs" (no interval)
  double warmup_median_s = NAN, warmup_max_s = NAN;
  double slice_ci_pct = NAN;  // median half-width of the within-run CIs, % of perf
  int unsteady_runs = 0, until_stable_runs = 0;
  std::vector<std::string> unsteady;                       // "file: reason"
  std::vector<std::string> until_stable;                   // files that used --until-stable
  double dev_min = NAN, dev_max = NAN, worst_share = NAN;  // fairness over device means
  std::string worst_device;
  double noise_pct = NAN;  // run-to-run noise, % of perf
  // With compare: two statements (evidence.hpp, fill_significance). Is the
  // difference real: Welch's t (sig.method says on what). Does it matter:
  // against the equivalence margin.
  TestResult sig{"", NAN, NAN, NAN, ""};
  double diff_pct = NAN;                 // (perf / perf_base - 1) * 100
  Interval diff_ci_pct = no_interval();  // 95% interval of diff_pct (Hodges-Lehmann with Mann-Whitney, else Welch)
  double noise_floor_pct = NAN;          // the equivalence margin, % of perf_base
  std::string margin_source;             // "--margin", "MAD of repeats", ... ("" when none)
  double margin_runs = NAN;              // runs the learned margin rests on (NaN with --margin or none)
  bool significant = false;              // sig.p_value < 0.05
  // Does it matter: "beyond" (the 95% interval of diff_pct lies outside
  // ±margin), "within" (inside it), "undecided", "" (no margin or no compare).
  std::string matters;
  double runs_needed = NAN;  // runs a side that would decide "matters" (when undecided)
  std::string verdict_kind;  // faster | slower | same | undecided | "" (nothing to compare)
  // One sentence saying both, e.g. "slower by 4.0% (within the 5.1% margin)",
  // "slower by 4.0% (undecided against the 5.0% margin; about 30 runs a side would decide)",
  // "same (within the 2.0% margin)", "cannot decide with these runs; about 12 runs a side would".
  std::string verdict;
};

// For one test and one statistic (mean/min/max): each device's pergpu value
// divided by the maximum over the test's devices.
struct GpuRatios {
  std::string test, stat;
  std::vector<std::pair<std::string, double>> devices;  // (device, ratio in [0,1])
};

struct ReportData {
  std::string title;
  bool has_compare = false;
  std::vector<ReportRow> rows;  // sorted by name
  double total_n = 0, total_fail = 0;
  double failure_rate = 0;                      // total_fail / total_n (NaN when total_n is 0)
  bool failure_pass = false;                    // failure_rate <= 1%
  std::map<std::string, double> failure_kinds;  // summed "failure_kinds" of the summary (kind -> count)
  // The original's rule (milarun/lib/report.py, _score): a weighted
  // geometric mean of perf_adj in which a weighted test without a result
  // keeps its weight in the denominator and adds nothing to the sum.
  double score = 0;
  double base_score = 0, score_ratio = 0;  // with compare, same rule on the baseline's side
  // Weighted tests whose perf_adj is 0 (clamped: std >= perf): they have a
  // result, and they make the original's score 0 (report.py takes
  // log(0) = -inf). score_zero_why says so in one line ("" when none); the
  // base_ fields are the same for the baseline's side.
  std::vector<std::string> zero_tests, base_zero_tests;
  std::string score_zero_why, base_score_zero_why;
  // Coverage: the weighted tests (weight > 0 in the weights file; without
  // one, every test of the summary and the baseline) and how many of them
  // have a result here (a finite perf_adj >= 0). covered < weighted: partial.
  int weighted_tests = 0, covered_tests = 0;
  std::vector<std::string> missing_tests;  // weighted tests without a result
  // Each missing test's effect on the score: the score computed without that
  // test (its weight removed). Under the original's rule a missing test
  // counts as perf 1 (log 1 = 0), so it lowers the score where the other
  // tests' perf_adj are above 1 and raises it where they are below.
  std::vector<std::pair<std::string, double>> score_without_missing;
  // With compare: scores over the weighted tests both sides have, weights
  // renormalised over them, and their ratio (NaN when none in common).
  int common_tests = 0;
  double common_score = 0, common_base_score = 0, common_ratio = 0;
  double price = 0;                          // dollars; 0 = not given
  std::vector<GpuRatios> gpus;               // with compare_gpus
  Interval score_ci = no_interval();         // 95% CI of score (weights fixed)
  bool score_ci_parametric = false;          // some tests had no per-run values
  std::string score_ci_note;                 // how score_ci was made, or why there is none
  std::vector<std::string> inventory_diffs;  // with compare
  // Lines naming tests whose numbers mix copies of one run or argument lists (summary_flags.hpp).
  std::vector<std::string> result_flags;
  // Context box: kContextKeys -> distinct values, from the summary's
  // inventory and the test names (profile), replaced by the runs' own facts
  // when the input is a results directory.
  std::map<std::string, std::vector<std::string>> context;
  bool has_runs = false;                 // input was a results directory (attach_runs)
  std::vector<WindowFlag> window_flags;  // flagged runs and runs with --min-duration
  // The results store's history of the report's tests (HTML trend charts); empty without a store.
  std::vector<TestTrend> trends;
};

// report.py's perf_base_adj of a baseline row: perf - min(std, perf).
double baseline_adjusted(const ReportRow& baseline_row);

// Table row of one summary entry (baseline schema); fields missing -> NaN.
ReportRow make_row(const std::string& name, const nlohmann::json& entry);

// exp(sum(w*log(perf_adj)) / sum(w)) over rows with a finite weight > 0 and
// finite perf_adj > 0; NaN when there is no such row.
double weighted_score(const std::vector<ReportRow>& rows);

// The original's score: exp(sum over `perf` entries of `weights`' tests with
// a finite perf > 0 of w*log(perf) / sum of every weight in `weights`). A
// test without a finite perf keeps its weight and adds 0; a test (weight
// > 0) whose perf is 0 makes the score 0, as log(0) = -inf does in
// report.py. NaN when the weights sum to 0.
double suite_score(const std::map<std::string, double>& weights, const std::map<std::string, double>& perf);

// Builds the report of `summary`, with the evidence of evidence.hpp beside
// the original numbers. `weights` is an object {test: {weight}}
// or null (every row weight 1); `baseline` a summary or null (no compare);
// `margin_pct` the equivalence margin of --compare in % (NaN: learned from
// the runs, evidence.hpp robust_noise).
// Throws std::runtime_error when summary is not an object.
ReportData build_report(const nlohmann::json& summary, const nlohmann::json& weights, const nlohmann::json& baseline,
                        double price, bool compare_gpus, const std::string& title, double margin_pct = NAN);

// Why a score is 0: "0 because perf_adj is 0 for b (std >= perf, or every
// run failed) and the original's report.py takes log(0) = -inf"; "" when `zero_tests` is empty.
std::string zero_score_reason(const std::vector<std::string>& zero_tests);

// "s.b raised it (37.20 without it), s.c lowered it (40.10 without it)": how
// each missing (or entirely failed) test moved the score; "" when none did.
std::string missing_effect_text(const ReportData& d);

// "bad_input 1, timeout 2" (sorted by kind), "" when no failure has a kind.
std::string failure_kinds_text(const ReportData& d);

}  // namespace milabench
