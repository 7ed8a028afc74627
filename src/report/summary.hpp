// Summary of a results directory in the schema of the original milabench's
// baselines (baselines/*/*.json): per test {n, failures, total, train,
// pergpu, peak_memory}, each stats block {n, min, max, mean, std}.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_series.hpp"
#include "results/input_checks.hpp"

namespace milabench {

// Throughput of one timings entry in examples/s: mean(rates[-20:-2]) with
// Python slice semantics (the last 20 slices without the last 2, so warm-up
// and the partial final slice are dropped). NaN when the slice is empty
// (fewer than 3 rates).
double perf_of_rates(const std::vector<double>& rates);

// {n, min, max, mean, std} of `values`; std is the population std (ddof=0),
// numpy's default, which reproduces the baselines' train.std from their
// pergpu blocks. Returns null when `values` is empty.
nlohmann::json compute_stats(const std::vector<double>& values);

// Parses JSON text, accepting Python's bare NaN/Infinity/-Infinity tokens
// (read as null). Throws nlohmann::json::parse_error on malformed text and
// nlohmann::json::out_of_range for a number beyond double (e.g. 1e999).
nlohmann::json parse_json_lenient(const std::string& text);

// Reads and parses a JSON file (lenient). Throws std::runtime_error naming
// the path when it is larger than max_bytes (checked before reading), cannot
// be opened or parsed, or holds a key twice in one object (JSON would keep
// the last silently). Limits: results/input_checks.hpp.
nlohmann::json read_json_file(const std::string& path, std::uint64_t max_bytes = kMaxResultFileBytes);

// Summary JSON of every `*.json` result file in `outdir` and its sub-folders,
// as the original's report.py: grouped by ResultRecord::group() (test name;
// "name.<device_count>" for the original's gpu-progression results), the
// baselines' keys {n, failures, total, train, pergpu, peak_memory} where
// total, train, pergpu and peak_memory come from successful runs only and
// pergpu is keyed by the run's one device (ResultRecord::pergpu_device);
// plus "stats" (intervals, steady state, fairness, noise; see evidence.hpp)
// and "inventory" (distinct machine facts and milarun versions of the test's
// results). Files without job_id, or with sub_job true, are not counted;
// unreadable or invalid files (over kMaxResultFileBytes, checked before
// reading; a "name" holding control characters) are skipped with one line
// each appended to `warnings`. A success whose rates are negative,
// non-finite or absurd, or whose throughput is 0, counts as a failure of kind
// "bad_result", with a warning. Throws std::runtime_error when `outdir` is
// not a directory.
nlohmann::json summarize_directory(const std::string& outdir, std::vector<std::string>& warnings);

// One result document to summarise: `label` names it in the evidence (a
// path under the results folder, or a store's file name), `where` in
// warnings (its path).
struct LabeledResult {
  std::string label, where;
  nlohmann::json doc;
};

// The summary of result documents already read (summarize_directory's rules
// after the files are read; the results store's suite runs come this way).
nlohmann::json summarize_results(const std::vector<LabeledResult>& results, std::vector<std::string>& warnings);

// Rate curves and facts (run_series.hpp: one per "train*" timings entry) of
// the counted results in `outdir` and its sub-folders, keyed as
// summarize_directory; labels are paths under `outdir`. Same skipping rules
// as summarize_directory.
std::map<std::string, std::vector<RateSeries>> collect_rate_series(const std::string& outdir,
                                                                   std::vector<std::string>& warnings);

}  // namespace milabench
