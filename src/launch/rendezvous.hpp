// Rendezvous: who this process is in a data-parallel group (rank, world size,
// local rank) and where the group meets (master address and port), read from
// the environment a launcher leaves. Torch-free.
//
// Sources, first match wins:
//  1. torchrun style: RANK and WORLD_SIZE set; MASTER_ADDR required when
//     WORLD_SIZE > 1 (default 127.0.0.1), MASTER_PORT required when
//     WORLD_SIZE > 1 (default 29500), LOCAL_RANK default 0.
//  2. Slurm (inside `srun`): SLURM_PROCID set; SLURM_STEP_NUM_TASKS (else
//     SLURM_NTASKS) is the world size, SLURM_LOCALID the local rank,
//     the first host of SLURM_STEP_NODELIST (else SLURM_JOB_NODELIST, else
//     SLURM_NODELIST) the master, and the port slurm_port(SLURM_JOB_ID,
//     SLURM_STEP_ID). MASTER_ADDR / MASTER_PORT, when set, override both.
//  3. Neither: a group of one (rank 0, world size 1, source "none").
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace milabench {

struct Rendezvous {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string source = "none";  // "torchrun", "slurm" or "none"
};

// A malformed or missing rendezvous variable. what() is one line naming the
// variable, its value and what to fix.
class RendezvousError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Returns the value of an environment variable, or nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

// Reads the rendezvous from `env` (default: the process environment).
// Throws RendezvousError on a bad value (not an integer, rank outside
// [0, world size), port outside 1..65535, an unparsable node list) or a
// missing one (WORLD_SIZE > 1 without MASTER_ADDR, SLURM_PROCID without
// SLURM_NTASKS or a node list).
Rendezvous rendezvous_from_env(const EnvLookup& env = {});

// First host of a Slurm host list: "node[01-03,7],gpu5" -> "node01",
// "a,b" -> "a", "x" -> "x". Throws RendezvousError for an empty list or
// unbalanced brackets.
std::string first_slurm_host(const std::string& nodelist);

// The master port of a Slurm step when MASTER_PORT is unset: 20000 +
// (job_id * 131 + step_id) % 40000, so concurrent jobs and the successive
// steps of one job (each scaling wave is a step) meet on different ports.
int slurm_port(int64_t job_id, int64_t step_id);

// A TCP port that was free on 127.0.0.1 when asked (bound, then released).
// Throws std::runtime_error when no socket can be bound.
int free_tcp_port();

// "rank 1/2 (local 1), master 127.0.0.1:29500, from torchrun" for logs.
std::string describe(const Rendezvous& r);

}  // namespace milabench
