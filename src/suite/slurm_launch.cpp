#include "suite/slurm_launch.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace milabench {

namespace {

int positive(const char* key, const char* v) {
  errno = 0;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || n < 1 || n > 1000000)
    throw std::runtime_error(fmt::format("--launcher slurm: {}=\"{}\" is not a positive count", key, v));
  return static_cast<int>(n);
}

}  // namespace

SlurmAllocation slurm_allocation(const EnvLookup& env) {
  auto get = [&](const char* k) -> const char* {
    const char* v = env ? env(k) : std::getenv(k);
    return v && *v ? v : nullptr;
  };
  if (!get("SLURM_JOB_ID"))
    throw std::runtime_error(
        "--launcher slurm: SLURM_JOB_ID is not set; run `milarun jobs` inside an allocation (sbatch or salloc)");
  const char* key = get("SLURM_JOB_NUM_NODES") ? "SLURM_JOB_NUM_NODES" : "SLURM_NNODES";
  if (!get(key)) throw std::runtime_error("--launcher slurm: neither SLURM_JOB_NUM_NODES nor SLURM_NNODES is set");
  SlurmAllocation a;
  a.nodes = positive(key, get(key));
  if (const char* c = get("SLURM_CPUS_ON_NODE")) {
    a.cpus_per_node = positive("SLURM_CPUS_ON_NODE", c);
  } else if (const char* j = get("SLURM_JOB_CPUS_PER_NODE")) {  // salloc: "2", "72(x2)" or "72(x2),36"
    std::string first(j);
    first = first.substr(0, first.find_first_of("(,"));
    a.cpus_per_node = positive("SLURM_JOB_CPUS_PER_NODE", first.c_str());
  }
  return a;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

ProcessSpec srun_spec(const ProcessSpec& task, const SrunStep& step) {
  std::string script = "export MILARUN_CPU_PARTITION=\"$SLURM_LOCALID\"; ";
  if (step.gpus) script += "export CUDA_VISIBLE_DEVICES=\"$SLURM_LOCALID\"; ";
  if (step.cpus_per_task > 0)
    script +=
        fmt::format("export OMP_NUM_THREADS={0} MKL_NUM_THREADS={0} OPENBLAS_NUM_THREADS={0}; ", step.cpus_per_task);
  const std::string id = shell_quote(task.job_id);
  if (step.rank_group)
    script += fmt::format("J={0}; [ \"$SLURM_PROCID\" = 0 ] || J={0}-rank\"$SLURM_PROCID\"; ", id);
  else
    script += fmt::format("J={}.\"$SLURM_PROCID\"; ", id);
  script += "exec";
  bool own_flags = true;
  for (std::size_t i = 0; i < task.argv.size(); ++i) {
    const std::string& a = task.argv[i];
    if (a == "--") own_flags = false;
    if (own_flags && a == "--job-id" && i + 1 < task.argv.size()) {
      script += " '--job-id' \"$J\"";
      ++i;
      continue;
    }
    script += " " + shell_quote(a);
  }

  ProcessSpec s;
  s.argv = {"srun",
            "--label",
            "--kill-on-bad-exit=1",
            "--job-name=" + task.name,
            fmt::format("--nodes={}", step.nodes),
            fmt::format("--ntasks={}", step.ntasks)};
  if (step.ntasks_per_node > 0) s.argv.push_back(fmt::format("--ntasks-per-node={}", step.ntasks_per_node));
  if (step.cpus_per_task > 0) s.argv.push_back(fmt::format("--cpus-per-task={}", step.cpus_per_task));
  s.argv.insert(s.argv.end(), {"/bin/sh", "-c", script});
  s.env = task.env;
  s.timeout_s = task.timeout_s;
  s.name = task.name;
  s.job_id = task.job_id;
  s.device = task.device;
  return s;
}

}  // namespace milabench
