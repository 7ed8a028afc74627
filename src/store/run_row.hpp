// The columns of a runs row, read from a result document through the one
// typed reader (results/result_record.hpp) and the summary's perf rule.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace milabench::store {

struct RunRow {
  std::string test;  // ResultRecord::group()
  std::string job_id, device;
  bool counted = false;   // has a job id and is not a sub-job (what the summary counts)
  std::string arguments;  // JSON list of the workload argv
  bool success = false;
  std::string failure_kind;            // "" when none written
  std::optional<double> perf;          // mean over train* entries of mean(rates[-20:-2]); nullopt when none
  std::string rates;                   // JSON {train key: [rates]}
  std::string telemetry;               // JSON {gpu_monitor, monitor, memory}
  std::string shortcuts;               // JSON list of opt-in shortcuts (metrics.shortcuts), [] when none
  std::optional<bool> synthetic_data;  // dataset.synthetic
  std::string finished_at;             // from the file name's UTC stamp, else ""
  std::string hostname;                // the document's "hostname", "" when absent
};

// Throws std::invalid_argument (with the reader's reason) when `doc` is not a result.
RunRow run_row(const std::string& file, const nlohmann::json& doc);

}  // namespace milabench::store
