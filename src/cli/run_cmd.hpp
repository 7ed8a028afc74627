// `milarun run`: one workload in this process, one result file.
#pragma once
#include <string>
#include <vector>

namespace milabench {

struct RunOptions {
  std::string experiment;       // short name or "milarun.models.x:main"
  std::string dataroot;         // -d (default $MILARUN_DATAROOT)
  std::string out;              // -o FILE.json | DIR; empty = JSON on stdout
  std::string experiment_name;  // result "name" (default: the workload name)
  std::string job_id;           // result "job_id" (may be empty)
  std::string extra_json;       // merged into the result
  std::vector<std::string> args;     // workload arguments (after --)
  std::vector<std::string> call;     // the full command line, recorded
};

// Returns 0 when the workload succeeded, 1 when it failed (a FAIL result was
// written), 2 for bad usage (unknown experiment or argument: nothing run).
int run_experiment(const RunOptions& opts);

// "1_000_000" -> "1000000" for numeric words; other words unchanged.
std::string normalize_number_word(const std::string& word);

}  // namespace milabench
