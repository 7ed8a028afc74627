// Turning a profile into waves of processes to launch.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "launch/process.hpp"
#include "suite/profile.hpp"

namespace milabench {

// Waves run one after another; the processes of one wave run in parallel.
struct JobPlan {
  std::vector<std::vector<ProcessSpec>> waves;
  std::vector<std::string> wave_test;                  // test name of each wave
  std::vector<std::vector<std::string>> wave_prepare;  // prepare commands of each wave
  std::vector<std::string> warnings;                   // one line each, printed before the runs
};

struct PlanInputs {
  std::string self_exe;   // milarun
  std::string dataroot;
  std::string outdir;
  int repeat = 1;
  std::vector<std::string> names;       // tests to keep; empty = all
  std::vector<std::string> extra_args;  // appended; override profile flags of the same name
  int devices = 1;                      // number of device slots (>= 1)
  std::vector<std::string> gpu_ids;     // real GPU ids; empty = no GPUs (CPU partitions only)
  std::vector<std::vector<int>> cpu_partitions;  // one per device slot, or empty = no affinity
  bool no_cgexec = false;               // leave ProcessSpec::cgroup empty
  // Whether an exec_prefix program exists; default looks it up on PATH.
  std::function<bool(const std::string&)> program_exists;
};

// Builds the plan. Throws ProfileError for an unknown --name (listing the
// available names), repeat < 1, or an exec_prefix program that is not on
// PATH (naming the test, the program and its package).
JobPlan build_plan(const Profile& profile, const PlanInputs& in);

}  // namespace milabench
