// Model figures: MFU and peak memory as the 2026 workloads record them
// (metrics.mfu = {value, peak, why, ...}, metrics.peak_memory = {bytes,
// source}; src/training/device_peaks.hpp), carried from the results through
// the summary (per test key "model") to the report's "model figures" table.
// Tests whose results record neither have no "model" key and no row.
#pragma once
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace milabench {

struct ReportData;

// What the summary gathers of one test's successful runs.
struct ModelFiguresAccumulator {
  std::vector<double> mfu;  // metrics.mfu.value of the runs that have one (fraction of the peak)
  std::string mfu_peak;     // metrics.mfu.peak: the dense bf16 peak divided by ("" when none)
  std::string mfu_why;      // metrics.mfu.why of a run without a value ("CPU run: ...")
  double peak_bytes = -1;   // the largest metrics.peak_memory.bytes; -1 when none
  std::string peak_source;  // its metrics.peak_memory.source
  bool any = false;         // some run recorded metrics.mfu or metrics.peak_memory

  // Reads one successful run's metrics (wrong types and non-finite values are ignored).
  void add(const nlohmann::json& metrics);
  // The summary's "model" entry: {mfu: stats or null, mfu_peak, mfu_why,
  // peak_memory_bytes or null, peak_memory_source}.
  nlohmann::json to_json() const;
};

// One report row's model figures, read from a summary entry's "model" (never throws).
struct ModelFigures {
  bool present = false;
  double mfu = NAN;         // mean MFU over the runs that have one, a fraction; NaN when none
  std::string mfu_note;     // the peak's name, or why there is no MFU
  double peak_mib = NAN;    // largest peak memory over the runs, MiB; NaN when none
  std::string peak_source;  // "cuda_caching_allocator_peak", "peak_rss", ...
};
ModelFigures read_model_figures(const nlohmann::json& entry);

// The text table ("model figures": test, rate, MFU, peak memory) and its
// HTML twin; both empty when no row has model figures.
void print_model_figures(const ReportData& d, std::ostream& out);
std::string model_figures_html(const ReportData& d);

}  // namespace milabench
