#include "launch/rendezvous.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace milabench {

namespace {

const char* lookup(const EnvLookup& env, const char* key) {
  const char* v = env ? env(key) : std::getenv(key);
  return v && *v ? v : nullptr;
}

// Parses a whole decimal integer in [lo, hi]; throws naming the variable.
int64_t parse_int(const char* name, const char* value, int64_t lo, int64_t hi, const std::string& hint) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(value, &end, 10);
  if (errno != 0 || end == value || *end != '\0' || v < lo || v > hi)
    throw RendezvousError(
        fmt::format("rendezvous: {}=\"{}\" is not an integer in [{}, {}]; {}", name, value, lo, hi, hint));
  return v;
}

const char* require(const EnvLookup& env, const char* name, const std::string& why) {
  const char* v = lookup(env, name);
  if (!v) throw RendezvousError(fmt::format("rendezvous: {} is not set; {}", name, why));
  return v;
}

constexpr int64_t kMaxWorld = 1 << 20;

void check_rank(const char* name, const Rendezvous& r) {
  if (r.rank >= r.world_size)
    throw RendezvousError(
        fmt::format("rendezvous: {}={} is not below the world size {}; every rank must be in "
                    "[0, world size)",
                    name, r.rank, r.world_size));
}

void apply_master_overrides(const EnvLookup& env, Rendezvous& r) {
  if (const char* a = lookup(env, "MASTER_ADDR")) r.master_addr = a;
  if (const char* p = lookup(env, "MASTER_PORT"))
    r.master_port = static_cast<int>(parse_int("MASTER_PORT", p, 1, 65535, "set a TCP port the ranks can reach"));
}

Rendezvous from_torchrun(const EnvLookup& env) {
  Rendezvous r;
  r.source = "torchrun";
  const std::string hint = "the launcher sets it (torchrun or `milarun jobs`)";
  r.world_size = static_cast<int>(parse_int("WORLD_SIZE", lookup(env, "WORLD_SIZE"), 1, kMaxWorld, hint));
  r.rank = static_cast<int>(parse_int("RANK", lookup(env, "RANK"), 0, kMaxWorld, hint));
  check_rank("RANK", r);
  if (const char* l = lookup(env, "LOCAL_RANK"))
    r.local_rank = static_cast<int>(parse_int("LOCAL_RANK", l, 0, kMaxWorld, hint));
  if (r.world_size > 1) {
    require(env, "MASTER_ADDR", "a group of several ranks needs the address of rank 0 (e.g. MASTER_ADDR=127.0.0.1)");
    require(env, "MASTER_PORT", "a group of several ranks needs a free TCP port on rank 0 (e.g. MASTER_PORT=29500)");
  }
  apply_master_overrides(env, r);
  return r;
}

Rendezvous from_slurm(const EnvLookup& env) {
  Rendezvous r;
  r.source = "slurm";
  const std::string hint = "run inside `srun` (Slurm sets it)";
  const char* ntasks = lookup(env, "SLURM_STEP_NUM_TASKS");  // this step's tasks, else the job's
  if (!ntasks) ntasks = lookup(env, "SLURM_NTASKS");
  if (!ntasks) throw RendezvousError("rendezvous: SLURM_PROCID is set but SLURM_NTASKS is not; " + hint);
  r.world_size = static_cast<int>(parse_int("SLURM_NTASKS", ntasks, 1, kMaxWorld, hint));
  r.rank = static_cast<int>(parse_int("SLURM_PROCID", lookup(env, "SLURM_PROCID"), 0, kMaxWorld, hint));
  check_rank("SLURM_PROCID", r);
  if (const char* l = lookup(env, "SLURM_LOCALID"))
    r.local_rank = static_cast<int>(parse_int("SLURM_LOCALID", l, 0, kMaxWorld, hint));
  const char* nodes = nullptr;
  for (const char* key : {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"})
    if (!nodes) nodes = lookup(env, key);
  if (nodes) {
    r.master_addr = first_slurm_host(nodes);
  } else if (r.world_size > 1 && !lookup(env, "MASTER_ADDR")) {
    throw RendezvousError(
        "rendezvous: SLURM_PROCID is set but no node list (SLURM_STEP_NODELIST, "
        "SLURM_JOB_NODELIST, SLURM_NODELIST) nor MASTER_ADDR; " +
        hint);
  }
  int64_t job = 0, step = 0;
  if (const char* j = lookup(env, "SLURM_JOB_ID")) job = parse_int("SLURM_JOB_ID", j, 0, INT64_MAX / 256, hint);
  if (const char* s = lookup(env, "SLURM_STEP_ID")) step = parse_int("SLURM_STEP_ID", s, 0, INT64_MAX / 256, hint);
  r.master_port = slurm_port(job, step);
  apply_master_overrides(env, r);
  return r;
}

}  // namespace

Rendezvous rendezvous_from_env(const EnvLookup& env) {
  if (lookup(env, "RANK") || lookup(env, "WORLD_SIZE")) {
    if (!lookup(env, "RANK") || !lookup(env, "WORLD_SIZE"))
      throw RendezvousError(fmt::format("rendezvous: {} is set but {} is not; set both (torchrun style) or neither",
                                        lookup(env, "RANK") ? "RANK" : "WORLD_SIZE",
                                        lookup(env, "RANK") ? "WORLD_SIZE" : "RANK"));
    return from_torchrun(env);
  }
  if (lookup(env, "SLURM_PROCID")) return from_slurm(env);
  Rendezvous r;
  apply_master_overrides(env, r);
  return r;
}

std::string first_slurm_host(const std::string& nodelist) {
  // The first host ends at the first comma outside brackets.
  std::string first;
  int depth = 0;
  for (char c : nodelist) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) break;
    if (c == ',' && depth == 0) break;
    first += c;
  }
  if (first.empty() || depth != 0)
    throw RendezvousError(
        fmt::format("rendezvous: Slurm node list \"{}\" is not a host list like \"node[01-03,7]\"", nodelist));
  // Every bracket group ("[01-03,7]") contributes its first value ("01").
  std::string host;
  for (std::size_t i = 0; i < first.size(); ++i) {
    if (first[i] != '[') {
      host += first[i];
      continue;
    }
    std::size_t close = first.find(']', i);
    std::string range = first.substr(i + 1, close - i - 1);
    std::string lowest = range.substr(0, range.find_first_of(",-"));
    if (lowest.empty())
      throw RendezvousError(fmt::format("rendezvous: Slurm node list \"{}\" has an empty range", nodelist));
    host += lowest;
    i = close;
  }
  return host;
}

int slurm_port(int64_t job_id, int64_t step_id) { return static_cast<int>(20000 + (job_id * 131 + step_id) % 40000); }

int free_tcp_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error(std::string("cannot open a TCP socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int e = errno;
    ::close(fd);
    throw std::runtime_error(std::string("cannot bind a TCP port on 127.0.0.1: ") + std::strerror(e));
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::string describe(const Rendezvous& r) {
  return fmt::format("rank {}/{} (local {}), master {}:{}, from {}", r.rank, r.world_size, r.local_rank, r.master_addr,
                     r.master_port, r.source);
}

}  // namespace milabench
