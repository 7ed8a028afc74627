// `milarun run`: one workload in this process, one result file
// (docs/result-format.md). The run boundary: everything that touches the
// device is inside one try; a failure becomes a result with a failure kind.
#pragma once
#include <string>
#include <vector>

#include "results/run_exit.hpp"

namespace milabench {

struct RunOptions {
  std::string experiment;         // short name or "milarun.models.x:main"
  std::string dataroot;           // -d (default $MILARUN_DATAROOT)
  std::string out;                // -o FILE.json | DIR; empty = JSON on stdout
  std::string experiment_name;    // result "name" (default: the workload name)
  std::string job_id;             // result "job_id" (may be empty)
  std::string extra_json;         // merged into the result
  std::vector<std::string> args;  // workload arguments (after --)
  std::vector<std::string> call;  // the full command line, recorded
};

// Returns a RunExit status.
int run_experiment(const RunOptions& opts);

}  // namespace milabench
