// The numbers of a report (table rows, scores, per-GPU ratios), computed
// once and rendered as text (report.cpp) or HTML (html.cpp).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace milabench {

// One test. Missing values are NaN (e.g. perf when every run failed).
struct ReportRow {
  std::string name;
  double weight = 0;        // NaN when a weights file is given and lacks the test
  double n = 0, fail = 0;
  double perf = 0;          // train.mean, examples/s
  double std_pct = 0;       // train.std / train.mean * 100
  double perf_adj = 0;      // perf * (1 - std/perf) * (1 - fail/n)
  double perf_base = 0, perf_ratio = 0, perf_base_adj = 0, perf_ratio_adj = 0;  // with compare
  // Mean over runs whose power was measured (summary "energy"); NaN otherwise.
  double joules_per_example = 0, examples_per_watt = 0;
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
  double failure_rate = 0;      // total_fail / total_n (NaN when total_n is 0)
  bool failure_pass = false;    // failure_rate <= 1%
  double score = 0;             // weighted geometric mean of perf_adj
  double base_score = 0, score_ratio = 0;  // with compare
  double price = 0;             // dollars; 0 = not given
  std::vector<GpuRatios> gpus;  // with compare_gpus
};

// Table row of one summary entry (baseline schema); fields missing -> NaN.
ReportRow make_row(const std::string& name, const nlohmann::json& entry);

// exp(sum(w*log(perf_adj)) / sum(w)) over rows with a finite weight > 0 and
// finite perf_adj > 0; NaN when there is no such row.
double weighted_score(const std::vector<ReportRow>& rows);

// Builds the report of `summary`. `weights` is an object {test: {weight}}
// or null (every row weight 1); `baseline` a summary or null (no compare).
// Throws std::runtime_error when summary is not an object.
ReportData build_report(const nlohmann::json& summary, const nlohmann::json& weights,
                        const nlohmann::json& baseline, double price, bool compare_gpus,
                        const std::string& title);

}  // namespace milabench
