// The numbers of a report (table rows, scores, per-GPU ratios), computed
// once and rendered as text (report.cpp) or HTML (html.cpp).
#pragma once
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/stats.hpp"

namespace milabench {

// One test. Missing values are NaN (e.g. perf when every run failed).
struct ReportRow {
  std::string name;
  double weight = 0;  // NaN when a weights file is given and lacks the test
  double n = 0, fail = 0;
  double perf = 0;     // train.mean, examples/s
  double std = 0;      // train.std, examples/s
  double std_pct = 0;  // train.std / train.mean * 100
  // (1 - fail/n) * (perf - min(std, perf)): report.py's perf_adj with the variance penalty
  double perf_adj = 0;
  // With compare: perf_base_adj = perf_base - min(std_base, perf_base) (report.py: no failure factor).
  double perf_base = 0, perf_ratio = 0, perf_base_adj = 0, perf_ratio_adj = 0;
  // Mean over runs whose power was measured (summary "energy"); NaN otherwise.
  double joules_per_example = 0, examples_per_watt = 0;

  // Evidence beside the original numbers (evidence.hpp); NaN / empty when unknown.
  Interval ci = no_interval();  // 95% CI of perf
  std::string ci_method;        // "bootstrap" (per-run values) or "t" (from n/mean/std)
  double warmup_median_s = NAN, warmup_max_s = NAN;
  double slice_ci_pct = NAN;  // median half-width of the within-run CIs, % of perf
  int unsteady_runs = 0, until_stable_runs = 0;
  std::vector<std::string> unsteady;                       // "file: reason"
  std::vector<std::string> until_stable;                   // files that used --until-stable
  double dev_min = NAN, dev_max = NAN, worst_share = NAN;  // fairness over device means
  std::string worst_device;
  double noise_pct = NAN;  // run-to-run noise, % of perf
  // With compare.
  TestResult sig{"", NAN, NAN, NAN, ""};
  double diff_pct = NAN;         // (perf / perf_base - 1) * 100
  double noise_floor_pct = NAN;  // max of both sides' noise_pct
  std::string verdict;           // same | faster | slower | not significant | "" (unknown)
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
  double score = 0;                             // weighted geometric mean of perf_adj
  double base_score = 0, score_ratio = 0;       // with compare
  double price = 0;                             // dollars; 0 = not given
  std::vector<GpuRatios> gpus;                  // with compare_gpus
  Interval score_ci = no_interval();            // 95% CI of score (weights fixed)
  bool score_ci_parametric = false;             // some tests had no per-run values
  std::vector<std::string> inventory_diffs;     // with compare
};

// report.py's perf_base_adj of a baseline row: perf - min(std, perf).
double baseline_adjusted(const ReportRow& baseline_row);

// Table row of one summary entry (baseline schema); fields missing -> NaN.
ReportRow make_row(const std::string& name, const nlohmann::json& entry);

// exp(sum(w*log(perf_adj)) / sum(w)) over rows with a finite weight > 0 and
// finite perf_adj > 0; NaN when there is no such row.
double weighted_score(const std::vector<ReportRow>& rows);

// Builds the report of `summary`, with the evidence of evidence.hpp beside
// the original numbers. `weights` is an object {test: {weight}}
// or null (every row weight 1); `baseline` a summary or null (no compare).
// Throws std::runtime_error when summary is not an object.
ReportData build_report(const nlohmann::json& summary, const nlohmann::json& weights, const nlohmann::json& baseline,
                        double price, bool compare_gpus, const std::string& title);

// "bad_input 1, timeout 2" (sorted by kind), "" when no failure has a kind.
std::string failure_kinds_text(const ReportData& d);

}  // namespace milabench
