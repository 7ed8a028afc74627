// `milarun jobs --launcher slurm`: each wave runs as one `srun` step inside
// the current allocation (sbatch/salloc). Torch-free.
#pragma once
#include <string>

#include "launch/process.hpp"
#include "launch/rendezvous.hpp"

namespace milabench {

// The allocation this process runs in.
struct SlurmAllocation {
  int nodes = 1;          // SLURM_JOB_NUM_NODES, else SLURM_NNODES
  int cpus_per_node = 0;  // SLURM_CPUS_ON_NODE, else the first count of SLURM_JOB_CPUS_PER_NODE; 0 = unknown
};

// Reads it from `env` (default: the process environment). Throws
// std::runtime_error with one line when SLURM_JOB_ID is unset (not inside an
// allocation) or a count is not a positive integer.
SlurmAllocation slurm_allocation(const EnvLookup& env = {});

// One srun step.
struct SrunStep {
  int nodes = 1;            // -N
  int ntasks = 1;           // -n
  int ntasks_per_node = 0;  // --ntasks-per-node; 0 = not passed
  int cpus_per_task = 0;    // -c and *_NUM_THREADS of each task; 0 = not passed
  bool gpus = false;        // each task takes GPU SLURM_LOCALID (CUDA_VISIBLE_DEVICES)
  bool rank_group = false;  // the tasks are the ranks of one group (scaling)
};

// Turns the `milarun run` process `task` (argv with "--job-id", job_id
// before "--") into one srun process. Each task runs `task.argv` through
// /bin/sh with MILARUN_CPU_PARTITION=$SLURM_LOCALID, CUDA_VISIBLE_DEVICES=
// $SLURM_LOCALID when step.gpus, and the job id replaced by
// "<job_id>.$SLURM_PROCID" (separate runs), or, for a rank group, "<job_id>"
// for task 0 and "<job_id>-rank$SLURM_PROCID" for the others (the workload
// meets through the Slurm rendezvous variables). The returned spec has no
// cpus and no cgroup (Slurm places the tasks), the same name, job_id and
// timeout; --kill-on-bad-exit stops a step whose task failed.
ProcessSpec srun_spec(const ProcessSpec& task, const SrunStep& step);

// `s` quoted for /bin/sh ('...' with embedded quotes escaped).
std::string shell_quote(const std::string& s);

}  // namespace milabench
