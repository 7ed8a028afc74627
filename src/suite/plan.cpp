#include "suite/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "launch/rendezvous.hpp"
#include "suite/slurm_launch.hpp"

namespace milabench {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

}  // namespace

std::vector<std::string> run_arguments(const TestSpec& t, const std::vector<std::string>& extra) {
  auto words = map_arguments(t.arguments, extra);
  words.insert(words.end(), extra.begin(), extra.end());
  return words;
}

bool is_secondary_rank(const ProcessSpec& s) {
  auto it = s.env.find("RANK");
  return it != s.env.end() && it->second != "0";
}

JobPlan build_plan(const Profile& profile, const PlanInputs& in) {
  if (in.repeat < 1) throw ProfileError(fmt::format("--repeat must be at least 1 (got {})", in.repeat));
  if (in.devices < 1) throw ProfileError(fmt::format("--devices must be at least 1 (got {})", in.devices));
  auto available = profile_test_names(profile);
  for (const auto& n : in.names)
    if (std::find(available.begin(), available.end(), n) == available.end())
      throw ProfileError(
          fmt::format("{}: no test named \"{}\"; available: {}", profile.path, n, join(available, ", ")));
  if (in.slurm_nodes < 1)
    throw ProfileError(fmt::format("Slurm node count must be at least 1 (got {})", in.slurm_nodes));
  auto pick_port = in.pick_port ? in.pick_port : [] { return free_tcp_port(); };
  auto exists = in.program_exists ? in.program_exists : [](const std::string& p) { return !find_on_path(p).empty(); };
  bool has_gpus = !in.gpu_ids.empty();
  auto device_id = [&](int d) { return d < static_cast<int>(in.gpu_ids.size()) ? in.gpu_ids[d] : std::to_string(d); };
  auto cpus_of = [&](int d) {
    return d < static_cast<int>(in.cpu_partitions.size()) ? in.cpu_partitions[d] : std::vector<int>{};
  };

  // A trailing slash: `milarun run` then always writes a file into the
  // folder (making it again if it vanished), never a file named like it.
  const std::string outdir_arg = in.outdir.empty() || in.outdir.back() == '/' ? in.outdir : in.outdir + "/";
  JobPlan plan;
  for (int r = 0; r < in.repeat; ++r) {
    for (const auto& t : profile.tests) {
      if (!in.names.empty() && std::find(in.names.begin(), in.names.end(), t.name) == in.names.end()) continue;
      const std::vector<std::string>& prefix = t.exec_prefix;
      if (!prefix.empty() && !exists(prefix[0]))
        throw ProfileError(
            fmt::format("{}: test \"{}\": exec_prefix program \"{}\" is not on PATH; install it ({}) or remove "
                        "\"exec_prefix\" from the profile",
                        profile.path, t.name, prefix[0],
                        prefix[0] == "nocache" ? "apt-get install nocache" : "the package that provides it"));
      auto make = [&](const std::string& name, const std::string& job_id, const std::string& dev) {
        ProcessSpec s;
        s.argv = prefix;
        std::vector<std::string> tail = {in.self_exe, "run",      t.experiment, "-d",
                                         in.dataroot, "-o",       outdir_arg,   "--experiment-name",
                                         name,        "--job-id", job_id,       "--"};
        s.argv.insert(s.argv.end(), tail.begin(), tail.end());
        auto words = run_arguments(t, in.extra_args);
        s.argv.insert(s.argv.end(), words.begin(), words.end());
        s.timeout_s = t.timeout_s;
        s.name = name;
        s.job_id = job_id;
        s.device = dev;
        if (!in.no_cgexec && !t.cgroup.empty()) s.cgroup = replace_all(t.cgroup, "{CUDA_VISIBLE_DEVICES}", dev);
        return s;
      };
      std::string base = profile.suite + "." + t.name;
      auto add_wave = [&](std::vector<ProcessSpec> wave) {
        plan.waves.push_back(std::move(wave));
        plan.wave_test.push_back(t.name);
        plan.wave_prepare.push_back(t.prepare);
      };
      // Device slot d of this machine: its GPU, CPU partition and cgroup.
      auto on_slot = [&](ProcessSpec s, int d) {
        if (has_gpus) s.env["CUDA_VISIBLE_DEVICES"] = device_id(d);
        s.env["MILARUN_CPU_PARTITION"] = std::to_string(d);
        s.cpus = cpus_of(d);
        return s;
      };
      const std::string rep = std::to_string(r);
      if (in.launcher == Launcher::Slurm) {
        SrunStep step;
        step.cpus_per_task = in.slurm_cpus_per_node > 0 ? std::max(1, in.slurm_cpus_per_node / in.devices)
                                                        : static_cast<int>(cpus_of(0).size());
        step.gpus = has_gpus;
        if (t.partition == PartitionType::PerGpu) {
          step.nodes = in.slurm_nodes;
          step.ntasks_per_node = in.devices;
          step.ntasks = in.devices * in.slurm_nodes;
          add_wave({srun_spec(make(base, rep, ""), step)});
        } else {
          step.rank_group = true;
          for (int k = 1; k <= in.devices * in.slurm_nodes; ++k) {
            step.ntasks = k;
            step.nodes = (k + in.devices - 1) / in.devices;
            add_wave({srun_spec(make(fmt::format("{}.{}", base, k), rep, ""), step)});
          }
        }
      } else if (t.partition == PartitionType::PerGpu) {
        std::vector<ProcessSpec> wave;
        for (int d = 0; d < in.devices; ++d)
          wave.push_back(on_slot(make(base, fmt::format("{}.{}", r, d), device_id(d)), d));
        add_wave(std::move(wave));
      } else {
        for (int k = 1; k <= in.devices; ++k) {
          const std::string port = std::to_string(pick_port());
          std::vector<ProcessSpec> wave;
          for (int d = 0; d < k; ++d) {
            ProcessSpec s = on_slot(
                make(fmt::format("{}.{}", base, k), d == 0 ? rep : fmt::format("{}-rank{}", r, d), device_id(d)), d);
            s.env["MASTER_ADDR"] = "127.0.0.1";
            s.env["MASTER_PORT"] = port;
            s.env["RANK"] = std::to_string(d);
            s.env["WORLD_SIZE"] = std::to_string(k);
            s.env["LOCAL_RANK"] = std::to_string(d);
            s.group = s.name + ".J" + rep;  // a dead rank stops the others (run_wave)
            wave.push_back(std::move(s));
          }
          add_wave(std::move(wave));
        }
      }
    }
  }
  return plan;
}

}  // namespace milabench
