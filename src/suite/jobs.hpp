// `milarun jobs`: run every test of a profile, wave after wave.
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launch/process.hpp"

namespace milabench {

struct JobsOptions {
  std::string profile;   // path to the profile JSON
  std::string dataroot;  // passed as -d to each run
  std::string outdir;    // results (-o) and logs/ go here; created if missing
  int repeat = 1;
  std::vector<std::string> names;       // only these tests; empty = all
  bool no_cgexec = false;
  int devices = 0;                      // 0 = detect
  std::vector<std::string> extra_args;  // after `--`; override profile flags
  std::string self_exe;                 // path of milarun; empty = /proc/self/exe
  // "local" (default) or "slurm": each wave as one `srun` step inside the
  // current allocation (suite/slurm_launch.hpp); anything else is an error (2).
  std::string launcher = "local";
  // No -o and no MILARUN_OUTROOT: results go to a fresh temporary folder
  // (named on `err`, kept) and every result's JSON is printed on `out`.
  bool json_to_stdout = false;
  // Checks a test's "--dataset" before anything runs: returns "" when it is
  // present under dataroot, else one line saying what to run. Empty = no check.
  std::function<std::string(const std::string& dataset, const std::string& dataroot)> check_dataset;
};

// Runs the jobs. Progress lines go to `out`, warnings and errors to `err`.
// Returns 0 when every process succeeded, 1 when one failed (a failure
// result file is written for it if it left none), 2 on bad options/profile
// or an unwritable outdir (nothing is run then).
int run_jobs(const JobsOptions& o, std::ostream& out, std::ostream& err);

// The failure result document for a process that left no result file.
// `device` "" gives null.
nlohmann::json failure_result(const ProcessSpec& spec, const ProcessResult& r);

// Whether outdir holds a result file "<name>.J<job_id>.*.json" modified at
// or after `since_epoch_s` (seconds since the epoch).
bool has_result_file(const std::string& outdir, const std::string& name, const std::string& job_id,
                     double since_epoch_s);

}  // namespace milabench
