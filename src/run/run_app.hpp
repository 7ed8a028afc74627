// The argument parser of one workload's run: the harness's flags (meter,
// the original's init_torch arguments) and the workload's own, on one
// CLI::App. `milarun run` parses with it; a dry run (e.g. checking a
// profile's arguments before a suite starts) can build and parse the same.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "measure/rate_meter.hpp"
#include "run/torch_init.hpp"
#include "workloads/workload.hpp"

namespace milabench {

// What the harness's flags set.
struct RunSettings {
  MeterOptions meter;  // --max-count, --min-duration, --sample-duration, --until-stable
  TorchArgs torch;     // --seed, --cuda/--no-cuda, --workers
};

// A parser for `workload` (made by info.make()): registers the harness's
// flags into `settings` (defaults: info.default_max_count, sample 0.5 s) and
// then the workload's own, then the ranges every workload shares
// (--batch-size > 0). `settings` and `workload` must outlive the app.
std::unique_ptr<CLI::App> configure_run_app(const WorkloadInfo& info, Workload& workload, RunSettings& settings);

// Parses the workload arguments (numbers with '_' separators accepted;
// 64-bit overflow, --max-count 0 without --until-stable and other ranges
// refused).
// Returns -1 when they are valid, else the exit status: 0 after --help (the
// help is printed on `out`), 2 for a bad argument (one line on `err` naming
// the flag and where to look).
int parse_run_args(CLI::App& app, const WorkloadInfo& info, const RunSettings& settings,
                   const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// A dry run of `milarun run EXPERIMENT -- ARGS` for `milarun jobs`: the same
// flag table, parsed, nothing run. With a dataroot, also whether the dataset
// the run reads (its --dataset, default included) is present there. Returns
// "" or one line naming the flag.
std::string check_run_arguments(const std::string& experiment, const std::vector<std::string>& args,
                                const std::string& dataroot);

}  // namespace milabench
