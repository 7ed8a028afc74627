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
  Interval slice_ci{};  // 95% interval of the window's mean level (series_mean_ci: AR(1) slices)
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

// Robust run-to-run noise (fraction of perf) and where it came from:
// "MAD of repeats" (deviations of each run from its device's median, pooled,
// 1.4826 * MAD / median perf: one hiccup barely moves it), "MAD across
// copies" (no device has repeats), "sd of repeats (no per-run values)"
// (noise_fraction of an original baseline). cv NaN and source "" when unknown.
struct RobustNoise {
  double cv;
  std::string source;
};
RobustNoise robust_noise(const nlohmann::json& entry);

// The "stats" block of one test: perf_ci95 (t over runs), runs, warmup_s,
// unsteady_runs, until_stable_runs, slice_ci95_pct, noise_pct,
// robust_noise_pct, fairness.
nlohmann::json stats_block(const std::vector<RunEvidence>& runs, const nlohmann::json& entry);

// Fills r's evidence fields from a summary entry: the perf interval is the t
// interval over the per-run values (stats.runs), else from train n/mean/std;
// "too few runs" below 2 runs.
void fill_row_evidence(ReportRow& r, const nlohmann::json& entry);
// Fills r's comparison fields (r.perf and r.perf_base set): Mann-Whitney U
// when both sides have 5 or more per-run values, else Welch's t on per-run
// values (summary numbers when a side has none); the 95% Welch interval of
// the difference, the equivalence margin (`margin_pct` when finite, else the
// larger robust_noise of the two sides) and the verdict sentence.
void fill_significance(ReportRow& r, const nlohmann::json& entry, const nlohmann::json& base, double margin_pct = NAN);

// 95% interval of the suite score (weighted geometric mean of perf_adj,
// weights and failures fixed) for the score the original formula gives with
// the tests' true means and sds. Parametric bootstrap: each replicate draws
// every weighted test's sd from its sampling distribution (chi-square with
// degrees of freedom reduced by the runs' pooled excess kurtosis) and its
// mean from N(mean, sd²/n). Invalid, with `note` saying why ("too few
// runs ..."), when a weighted test has fewer than kMinRunsForScore runs.
// `parametric` is set when a test had no per-run values (its kurtosis is
// taken from the others', 0 when none has any).
constexpr double kMinRunsForScore = 3;
Interval score_interval(const std::vector<ReportRow>& rows, const nlohmann::json& summary, bool& parametric,
                        std::string& note);

// One line per inventory key whose values differ between the two summaries.
std::vector<std::string> inventory_differences(const nlohmann::json& summary, const nlohmann::json& baseline);

}  // namespace milabench
