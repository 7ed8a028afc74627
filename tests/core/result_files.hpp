// Result files for report tests: a minimal valid result record (the fields
// `milarun summary` reads), written under a scratch folder that is removed
// when the test process exits (scratch_dir.hpp). Shared by report_test,
// evidence_test and html_hostile_test.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scratch_dir.hpp"
#include "test_files.hpp"  // write_text

namespace milabench::test {

// The source tree (CTest sets MILABENCH_SOURCE), for baselines/ and weights/.
inline std::string source_root() {
  const char* s = std::getenv("MILABENCH_SOURCE");
  return s ? s : ".";
}

// A fresh empty folder, removed at exit.
inline std::filesystem::path result_dir(const std::string& tag) { return scratch_dir("result_files_" + tag); }

// One run's result: `rates` are the train slices' examples/s; loss 0.5,
// program time 10 s, RSS peak 100 MB; a string `device` is also its
// environ.CUDA_VISIBLE_DEVICES (what the summary groups per GPU by, as the
// original's report.py). Callers add or change keys as needed.
inline nlohmann::json result_record(const std::string& name, const nlohmann::json& job_id, const nlohmann::json& device,
                                    const std::vector<double>& rates, bool success = true) {
  nlohmann::json env = nlohmann::json::object();
  if (device.is_string()) env["CUDA_VISIBLE_DEVICES"] = device;
  return {{"name", name},
          {"job_id", job_id},
          {"success", success},
          {"error", nullptr},
          {"sub_job", false},
          {"device", device},
          {"environ", env},
          {"metrics", {{"loss", 0.5}}},
          {"timings", {{"program", {{"time", 10.0}}}, {"train", {{"rates", rates}}}}},
          {"memory", {{"rss_peak_mb", 100.0}}}};
}

inline void write_json(const std::filesystem::path& p, const nlohmann::json& j) { write_text(p, j.dump()); }

}  // namespace milabench::test
