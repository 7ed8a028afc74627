// What the report shows about each counted run beyond the summary numbers:
// its rate curve, count unit, device, --min-duration and the machine facts of
// its result file; and the check that its summary window (rates[-20:-2], the
// last 10 s minus the last second) holds neither warm-up nor too few slices.
// Torch-free. Every string is untrusted text from a result file.
#pragma once
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace milabench {

struct ReportData;

// One timings "train*" entry of one counted result file.
struct RateSeries {
  std::string label;             // result file name (+ ":train_R" for a scaling rank)
  std::string device;            // the result's "device", "" when not recorded
  std::vector<double> rates;     // count_unit per second, one per slice
  double sample_duration = 0.5;  // seconds per slice (timings.train.sample_duration)
  double min_duration = NAN;     // --min-duration S (timings.train.min_duration); NaN when not recorded
  double extended_s = 0;         // timed seconds past --max-count by the window rule (timings.train.extended_s)
  double measured_s = NAN;       // timings.train.time; NaN when not recorded
  std::string count_unit;        // "images", "tokens", ...; "" when not recorded
  bool success = false;          // the result's "success"
  // Context facts of the result (kContextKeys), only those it records.
  std::map<std::string, std::string> facts;
};

// Context box keys, in display order: date, host, cpu, cpus, ram, gpus,
// driver, kernel, libtorch, milarun, isolation, data.
extern const std::vector<std::string> kContextKeys;

// Appends one RateSeries per "train*" timings entry of the result `doc`,
// stored as file `file` (its name carries the date stamp).
void append_run_series(std::vector<RateSeries>& out, const std::string& file, const nlohmann::json& doc);

// The summary-window check of one run.
struct WindowFlag {
  std::string test, label, device;
  int slices = 0;  // rates recorded
  double sample_duration = 0.5;
  int window_begin = 0;       // index of the window's first slice: max(0, slices - 20)
  double warmup_s = NAN;      // steady_state's warm-up; NaN when the series is too short to tell
  int warm_in_window = 0;     // warm-up slices inside the window
  bool too_short = false;     // fewer than 20 slices: the window has fewer than 18
  double min_duration = NAN;  // as recorded by the run
  double extended_s = 0;      // past --max-count by the window rule, as recorded
  double measured_s = NAN;
  bool flagged() const { return too_short || warm_in_window > 0; }
  std::string reason() const;  // "" when not flagged
};

// Checks one run with measure/steady_state's warm-up detection
// (warmup_seconds with the run's sample_duration).
WindowFlag check_summary_window(const std::string& test, const RateSeries& s);
// The same check given the run's warm-up in seconds (NaN: unknown).
WindowFlag check_summary_window(const std::string& test, const RateSeries& s, double warmup_s);

// Adds what the runs tell to a report built from their summary: each row's
// count unit, the window flags of its successful runs (flagged ones and
// those with --min-duration),
// and the context (distinct facts of every run).
void attach_runs(ReportData& d, const std::map<std::string, std::vector<RateSeries>>& series);

// Text section: flagged runs and runs with --min-duration; nothing when none.
void print_window_flags(const ReportData& d, std::ostream& out);

}  // namespace milabench
