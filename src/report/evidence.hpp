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
// "gpu_power_limit" is kDefaultPowerLimit when every GPU enforces its
// board's default power limit, else the lowered ones ("GPU 1: 300 W of 400 W
// default": under kLoweredPowerLimit of the default); "cpu_governor" the
// cpufreq governors, comma-separated; "cpu_boost" "on" or "off"; "gpu_mig"
// kMigOff when no GPU is split into MIG instances, else the split ones with
// their instances' profiles ("GPU 1: 1g.10gb, 3g.40gb").
nlohmann::json result_inventory(const nlohmann::json& result);
constexpr const char* kDefaultPowerLimit = "default";
constexpr double kLoweredPowerLimit = 0.99;
constexpr const char* kMigOff = "off";
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

// Run-to-run deviations of a summary entry's runs, each a fraction of the
// test's median perf: (x_i - x_j) / √2 for every pair of runs on the same
// device, over the devices with repeats (repeats true); when no device has
// 2 runs, over every pair of runs (across copies). Each is distributed as
// one run's deviation from the true level whatever the group size. `runs`:
// the runs they come from. Empty without per-run values.
struct NoiseDeviations {
  std::vector<double> rel;
  size_t runs = 0;
  bool repeats = false;
};
NoiseDeviations noise_deviations(const nlohmann::json& entry);

// Robust run-to-run noise (fraction of perf) and where it came from:
// 1.4826 * median |deviation| of noise_deviations ("MAD of repeats", "MAD
// across copies": one hiccup barely moves it), else "sd of repeats (no
// per-run values)" (noise_fraction of an original baseline). cv NaN and
// source "" when unknown.
struct RobustNoise {
  double cv;
  std::string source;
};
RobustNoise robust_noise(const nlohmann::json& entry);

// The learned equivalence margin of one test, % of perf (docs/statistics.md
// §7): the MAD of the test's deviations on both sides pooled; when they
// number fewer than kMinRunsForMargin, of every test's deviations on both
// sides (suite_noise_deviations) when they come from more runs; without per-run
// values, the larger side's repeat sd. At least kMarginFloorPct. `runs`: the
// deviations it rests on (the train n of the side used for a repeat sd);
// below kMinRunsForMargin `source` says it is a guess and to pass --margin.
constexpr double kMarginFloorPct = 1.0;
constexpr size_t kMinRunsForMargin = 10;
struct Margin {
  double pct = NAN, runs = NAN;
  std::string source;  // "" when nothing is known (pct NaN)
};
Margin learned_margin(const nlohmann::json& entry, const nlohmann::json& base, const NoiseDeviations& suite);
// noise_deviations of every test of both summaries, pooled.
NoiseDeviations suite_noise_deviations(const nlohmann::json& summary, const nlohmann::json& baseline);

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
// the difference, the equivalence margin (`margin_pct` when finite, else
// learned_margin with `suite_deviations`) and the verdict sentence.
// Does it matter (r.matters): the 95% interval of the difference against
// ±margin (against_margin); a difference the test does not call real is
// never "beyond". When undecided, r.runs_needed is the runs a side that would
// decide it (runs_to_decide_margin, at least one more than either side has).
void fill_significance(ReportRow& r, const nlohmann::json& entry, const nlohmann::json& base, double margin_pct = NAN,
                       const NoiseDeviations& suite_deviations = {});

// The verdict sentence and verdict_kind of r from r.significant, r.matters,
// r.diff_pct, r.noise_floor_pct and r.runs_needed; n_a, n_b the runs of each
// side (below 2: "repeat each side at least 3 times"). docs/statistics.md §8.
void set_verdict(ReportRow& r, double n_a, double n_b);

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
