// `milarun jobs`: run every test of a profile, wave after wave.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "launch/process.hpp"
#include "results/args_check.hpp"
#include "suite/run_outcome.hpp"

namespace milabench {

// One test as `milarun run` will get it (argv after "--"), for pre-flight checks.
using TestArguments = ArgsCheckRequest;

// The largest --min-free-mb (1 PiB in MiB): past it the number is a mistake.
constexpr double kMaxMinFreeMb = 1e9;

struct JobsOptions {
  std::string profile;   // path to the profile JSON
  std::string dataroot;  // passed as -d to each run
  std::string outdir;    // results (-o) and logs/ go here; created if missing
  int repeat = 1;
  std::vector<std::string> names;  // only these tests; empty = all
  bool no_cgexec = false;
  int devices = 0;  // 0 = detect (unless devices_given)
  // --devices / --max-duration were on the command line: 0 is then an error, not the default.
  bool devices_given = false, max_duration_given = false;
  std::vector<std::string> extra_args;  // after `--`; override profile flags
  std::string self_exe;                 // path of milarun; empty = /proc/self/exe
  // "local" (default) or "slurm": each wave as one `srun` step inside the
  // current allocation (suite/slurm_launch.hpp); anything else is an error (2).
  std::string launcher = "local";
  // No -o and no MILARUN_OUTROOT: results go to a fresh temporary folder
  // (named on `err`, kept) and every result's JSON is printed on `out`.
  bool json_to_stdout = false;
  // Pre-flight, before anything starts: a dry run of every selected test's
  // `milarun run` (experiment known, arguments parsed by the workload's own
  // flag table) and of the dataset it reads under dataroot. Returns one
  // "TEST<tab>problem" line per problem; throws std::runtime_error when it
  // cannot check. Empty = no check.
  std::function<std::string(const std::vector<TestArguments>& tests, const std::string& dataroot)> preflight;
  // Skip runs that already have a result in outdir; a run whose result is a
  // failure a user can fix (run_outcome.hpp, fixable_failure) runs again and
  // its old file moves to outdir/superseded/. Results parked in
  // unsaved_dir(outdir) are moved back first.
  bool resume = false;
  // Allow results of the same test run with other arguments in outdir
  // (refused by default: one summary would mix them).
  bool mixed_arguments = false;
  double max_duration_s = 0;  // > 0: every run's time limit, overriding the profile's "timeout"
  // > 0: passed to every run as `--min-duration S`: a run continues past
  // --max-count until S seconds of training were timed (fast machines).
  double min_duration_s = 0;
  // Passed to every run as `--stop-at-count`: stop at --max-count as the
  // original, with no window rule (measure/rate_meter.hpp).
  bool stop_at_count = false;
  // Stop before a wave when outdir's filesystem has less than this free.
  double min_free_mb = 16;
  // Results store the runs are recorded in as they finish (store/recorder.hpp,
  // after their JSON files); "" records nothing. A store that cannot be used
  // is one warning, and the suite goes on with its JSON files.
  std::string db;
};

// Runs the jobs. Progress lines go to `out`, warnings and errors to `err`.
// Returns 0 when every process succeeded, 1 when one failed (a failure
// result file is written for it if it left none) or the disk filled up, 2 on
// bad options/profile, a test that fails the pre-flight checks, results of
// other arguments in outdir, an unwritable outdir, or an outdir another suite
// holds (suite/outdir_lock.hpp) (nothing is run then), and
// 128 + signal after SIGINT/SIGTERM/SIGHUP (children stopped, the unfinished
// runs recorded as interrupted; `--resume` runs them and the rest).
int run_jobs(const JobsOptions& o, std::ostream& out, std::ostream& err);

}  // namespace milabench
