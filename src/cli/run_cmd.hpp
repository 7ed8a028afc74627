// `milarun run`: one workload in this process, one result file.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "measure/rate_meter.hpp"
#include "workloads/workload.hpp"

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

// The flags every workload takes besides its own: the rate meter's and
// init_torch's common ones.
struct RunFlags {
  MeterOptions meter;
  bool cuda = false, no_cuda = false;
  int64_t seed = 1234;  // init_torch's default
  int workers = 0;      // --workers; 0 = not given (the original's None: 1 thread)
};

// Builds the flag table of `milarun run NAME --` on `app`: RunFlags, then the
// workload's own flags, then the ranges every workload shares (--batch-size
// > 0). Returns the name of the workload's dataset flag ("--dataset"), or ""
// when it reads no dataset.
std::string configure_run_app(CLI::App& app, const WorkloadInfo& info, Workload& workload, RunFlags& flags);

// Parses `args` (number words normalised) into an app configured above and
// checks what CLI11 cannot (integer overflow, --sample-duration,
// --max-count). Returns "" or one line naming the flag. Throws
// CLI::CallForHelp for --help.
std::string parse_run_arguments(CLI::App& app, const std::vector<std::string>& args, const RunFlags& flags);

// A dry run of `milarun run EXPERIMENT -- ARGS` for `milarun jobs`: the same
// flag table, parsed, nothing run. With a dataroot, also whether the dataset
// the run reads (its --dataset, default included) is present there. Returns
// "" or one line naming the flag.
std::string check_run_arguments(const std::string& experiment, const std::vector<std::string>& args,
                                const std::string& dataroot);

// Returns 0 when the workload succeeded, 1 when it failed (a FAIL result was
// written), 2 for bad usage (unknown experiment or argument: nothing run).
int run_experiment(const RunOptions& opts);

}  // namespace milabench
