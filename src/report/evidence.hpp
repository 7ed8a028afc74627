// The evidence printed beside the original numbers (which never change):
// confidence intervals, steady state, fairness between parallel copies,
// noise floor, significance against a baseline, inventory differences.
// Summary side: the "stats" and "inventory" keys of each test (added to the
// baselines' schema; docs/result-format.md). Report side: fills ReportRow /
// ReportData from a summary, falling back to what the original's baselines
// carry (train {n, mean, std}, pergpu) when "stats" is absent.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/stats.hpp"
#include "report/report_data.hpp"

namespace milabench {

// Inventory keys checked by --compare, in print order.
extern const std::vector<std::string> kInventoryKeys;

// Evidence of one successful timings entry ("train", "train_1", ...) of one result file.
struct RunEvidence {
  std::string file;     // result file name (+ ":key" for train_N)
  std::string device;   // device id, may be empty
  double perf = 0;      // mean(rates[-20:-2]) as in the summary
  Interval slice_ci{};  // 95% block bootstrap over the window's slices
  double warmup_s = 0;  // NaN when too short
  bool steady = false;
  std::string reason;  // why not steady
  bool until_stable = false, stopped_stable = false;
};

RunEvidence run_evidence(const std::string& label, const std::string& device, const nlohmann::json& timing);

// Inventory of one result file: {key: string} for the keys it records.
nlohmann::json result_inventory(const nlohmann::json& result);
// Adds `one` into `acc` ({key: sorted array of distinct strings}).
void merge_inventory(nlohmann::json& acc, const nlohmann::json& one);

// Fairness over a pergpu object (per-device stats): {min, max (of the
// device means), worst_device, worst_share (its mean / mean of the device
// means)}; null with fewer than 2 devices.
nlohmann::json fairness_of(const nlohmann::json& pergpu);

// Run-to-run noise of a summary entry as a fraction of perf: the pooled
// coefficient of variation between repeats on the same device (pergpu
// blocks with n >= 2), else train std/mean across copies. NaN when unknown.
double noise_fraction(const nlohmann::json& entry);

// The "stats" block of one test: perf_ci95, runs, warmup_s, unsteady_runs,
// until_stable_runs, slice_ci95_pct, noise_pct, fairness.
nlohmann::json stats_block(const std::vector<RunEvidence>& runs, const nlohmann::json& entry);

// Fills r's evidence fields from a summary entry.
void fill_row_evidence(ReportRow& r, const nlohmann::json& entry);
// Fills r's significance fields: the test entry against the baseline's.
void fill_significance(ReportRow& r, const nlohmann::json& entry, const nlohmann::json& base);

// 95% interval of the suite score (weighted geometric mean of perf_adj,
// weights fixed): each weighted test's per-run values are resampled
// (parametric normal draws from train {n, mean, std} where the summary has
// no per-run values), failures held fixed. Sets `parametric` when any test
// needed the fallback.
Interval score_interval(const std::vector<ReportRow>& rows, const nlohmann::json& summary, bool& parametric);

// One line per inventory key whose values differ between the two summaries.
std::vector<std::string> inventory_differences(const nlohmann::json& summary, const nlohmann::json& baseline);

}  // namespace milabench
