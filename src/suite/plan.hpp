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

// How a wave's processes start: forked here, or as the tasks of one `srun`
// step inside a Slurm allocation (suite/slurm_launch.hpp).
enum class Launcher { Local, Slurm };

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
  Launcher launcher = Launcher::Local;
  // Nodes of the allocation (Launcher::Slurm; devices are per node) and the
  // CPUs allocated per node, shared equally by a node's tasks (0 = the size
  // of cpu_partitions[0]).
  int slurm_nodes = 1;
  int slurm_cpus_per_node = 0;
  // A free TCP port for the MASTER_PORT of a local rank group; default free_tcp_port().
  std::function<int()> pick_port;
};

// Local launch of a gpu-progression test (name.K, K = 1..devices): one wave
// of K rank processes, rank r on device slot r (its GPU, CPU partition and
// cgroup), with MASTER_ADDR=127.0.0.1, MASTER_PORT (pick_port), RANK=r,
// WORLD_SIZE=K, LOCAL_RANK=r. Rank 0 has job id "<repeat>" and writes the
// group's result; rank r > 0 has job id "<repeat>-rank<r>".
// Slurm launch: one `srun` process per wave (slurm_launch.hpp), per-gpu tests
// as devices tasks on each of slurm_nodes nodes, name.K for K = 1 ..
// devices * slurm_nodes.
//
// Builds the plan. Throws ProfileError for an unknown --name (listing the
// available names), repeat < 1, or an exec_prefix program that is not on
// PATH (naming the test, the program and its package).
JobPlan build_plan(const Profile& profile, const PlanInputs& in);

// The workload arguments (argv after "--") every run of `t` gets: the
// profile's arguments (map_arguments), then `extra`, which overrides them.
std::vector<std::string> run_arguments(const TestSpec& t, const std::vector<std::string>& extra);

// Whether `s` is a rank other than 0 of a local rank group: its failure is
// the group's, already recorded by rank 0, so a failure file for it is
// marked "subjob" (not counted by the summary).
bool is_secondary_rank(const ProcessSpec& s);

}  // namespace milabench
