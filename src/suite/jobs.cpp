#include "suite/jobs.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "devices/gpu_ids.hpp"
#include "fetch/disk_space.hpp"
#include "launch/devices.hpp"
#include "launch/interrupt.hpp"
#include "launch/isolation.hpp"
#include "launch/self_exe.hpp"
#include "launch/topology.hpp"
#include "results/atomic_write.hpp"
#include "results/failure_kind.hpp"
#include "results/result_name.hpp"
#include "results/result_scan.hpp"
#include "results/run_exit.hpp"
#include "suite/plan.hpp"
#include "suite/profile.hpp"
#include "suite/slurm_launch.hpp"

namespace milabench {

namespace {

double now_epoch_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Prints every result file of `dir` (sorted by name) on `out`.
void print_results(const std::string& dir, std::ostream& out) {
  for (const auto& f : json_files_in(dir)) {
    std::ifstream in(f);
    out << in.rdbuf() << "\n";
  }
}

// Warns, before anything runs, about each test whose --dataset is absent.
void warn_missing_datasets(const Profile& profile, const JobsOptions& o, std::ostream& err) {
  std::map<std::string, std::vector<std::string>> users;  // dataset -> tests
  for (const auto& t : profile.tests) {
    if (!o.names.empty() && std::find(o.names.begin(), o.names.end(), t.name) == o.names.end()) continue;
    auto it = t.arguments.find("--dataset");
    if (it != t.arguments.end() && it->is_string()) users[it->get<std::string>()].push_back(t.name);
  }
  if (users.empty()) return;
  std::vector<std::string> names;
  for (const auto& [name, tests] : users) names.push_back(name);
  std::istringstream lines(o.check_datasets(names, o.dataroot));
  for (std::string line; std::getline(lines, line);) {
    auto tab = line.find('\t');
    if (tab == std::string::npos || !users.count(line.substr(0, tab))) continue;
    for (const auto& t : users[line.substr(0, tab)])
      err << fmt::format("warning: test {}: {}\n", t, line.substr(tab + 1));
  }
}

// Drops from the plan every run with a result in outdir; an interrupted
// run's file is removed so that its new result does not duplicate it. The
// ranks of a group (scaling.K) only make sense together: rank 0's result
// decides for the whole wave.
void skip_finished_runs(JobPlan& plan, const std::string& outdir, std::ostream& err) {
  auto done = existing_results(outdir);
  auto finished = [&](const ProcessSpec& s) {
    auto it = done.find({s.name, s.job_id});
    if (it == done.end()) return false;
    const auto kind = parse_failure_kind(it->second.failure_kind);
    return !(kind && failure_is_unfinished(*kind));
  };
  int skipped = 0, again = 0;
  for (auto& wave : plan.waves) {
    const bool group = std::any_of(wave.begin(), wave.end(), is_secondary_rank);
    bool group_done = false;
    if (group)
      for (const auto& s : wave) group_done = group_done || (!is_secondary_rank(s) && finished(s));
    std::vector<ProcessSpec> keep;
    for (auto& spec : wave) {
      if (group ? group_done : finished(spec)) {
        ++skipped;
        continue;
      }
      auto it = done.find({spec.name, spec.job_id});
      if (it != done.end()) {  // an interrupted run, or a rank of a group that runs again
        ::unlink(it->second.path.c_str());
        ++again;
      }
      keep.push_back(std::move(spec));
    }
    wave = std::move(keep);
  }
  err << fmt::format("resume: {} run(s) already have a result and are skipped; {} interrupted run(s) run again\n",
                     skipped, again);
}

bool enough_space(const std::string& dir, double min_free_mb, std::ostream& err) {
  try {
    double free_mb = fetch::system_disk_space().available_bytes(dir) / (1024.0 * 1024.0);
    if (free_mb >= min_free_mb) return true;
    err << fmt::format("error: {} has {:.1f} MiB free, less than the {:.0f} MiB a run needs for its result and log\n",
                       dir, free_mb, min_free_mb);
    return false;
  } catch (const std::exception& e) {
    err << "warning: " << e.what() << "\n";
    return true;
  }
}

bool has_unsaved(const std::string& outdir) { return !json_files_in(unsaved_dir(outdir)).empty(); }

}  // namespace

int run_jobs(const JobsOptions& o_in, std::ostream& out, std::ostream& err) {
  auto t0 = std::chrono::steady_clock::now();
  JobsOptions opt = o_in;
  const JobsOptions& o = opt;
  if (o.profile.empty()) {
    err << "error: no profile given\n";
    return 2;
  }
  if (opt.json_to_stdout) {
    char tmpl[] = "/tmp/milarun-results-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      err << "error: cannot create a temporary results folder; pass -o OUTDIR\n";
      return 2;
    }
    opt.outdir = tmpl;
    err << fmt::format("milarun jobs: no -o: results kept in {}, JSON printed on stdout\n", opt.outdir);
  }
  if (opt.outdir.empty()) {
    err << "error: no output directory given (-o OUTDIR or MILARUN_OUTROOT)\n";
    return 2;
  }
  if (opt.dataroot.empty()) {
    err << "error: no data root given (-d DATAROOT or MILARUN_DATAROOT)\n";
    return 2;
  }
  if (o.repeat < 1) {
    err << fmt::format("error: --repeat must be at least 1 (got {})\n", o.repeat);
    return 2;
  }
  if (o.devices < 0) {
    err << fmt::format("error: --devices must be positive (got {})\n", o.devices);
    return 2;
  }
  if (!(o.min_duration_s >= 0) || !std::isfinite(o.min_duration_s)) {
    err << fmt::format("error: --min-duration must be a number of seconds >= 0 (got {})\n", o.min_duration_s);
    return 2;
  }
  if (o.max_duration_s < 0 || std::isnan(o.max_duration_s)) {
    err << fmt::format("error: --max-duration must be a positive number of seconds (got {})\n", o.max_duration_s);
    return 2;
  }

  Profile profile;
  try {
    profile = load_profile(o.profile);
  } catch (const ProfileError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }

  PlanInputs in;
  in.self_exe = o.self_exe.empty() ? self_exe_path() : o.self_exe;
  in.dataroot = o.dataroot;
  in.outdir = o.outdir;
  in.repeat = o.repeat;
  in.names = o.names;
  in.extra_args = o.extra_args;
  if (o.min_duration_s > 0) {  // every run keeps going past --max-count until this much was timed
    in.extra_args.push_back("--min-duration");
    in.extra_args.push_back(argument_value_string(nlohmann::ordered_json(o.min_duration_s)));
  }
  in.no_cgexec = o.no_cgexec;
  in.gpu_ids = detect_gpu_ids();
  in.devices = o.devices > 0 ? o.devices : std::max<int>(1, in.gpu_ids.size());
  try {
    in.cpu_partitions = device_cpu_partitions(in.gpu_ids, in.devices);
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  JobPlan plan;
  try {
    // --launcher slurm (issue 5): waves become srun steps over the allocation's nodes.
    if (o.launcher != "local" && o.launcher != "slurm")
      throw ProfileError(fmt::format("--launcher must be local or slurm (got \"{}\")", o.launcher));
    if (o.launcher == "slurm") {
      SlurmAllocation a = slurm_allocation();
      in.launcher = Launcher::Slurm, in.slurm_nodes = a.nodes, in.slurm_cpus_per_node = a.cpus_per_node;
    }
    plan = build_plan(profile, in);
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }

  if (!make_dirs(o.outdir) || ::access(o.outdir.c_str(), W_OK) != 0) {
    err << fmt::format("error: cannot write to output directory {}: {}\n", o.outdir, std::strerror(errno));
    return 2;
  }
  for (const auto& w : plan.warnings) err << w << "\n";
  if (o.check_datasets) warn_missing_datasets(profile, o, err);
  if (o.max_duration_s > 0)
    for (auto& wave : plan.waves)
      for (auto& spec : wave) spec.timeout_s = o.max_duration_s;
  if (o.resume) {
    if (int n = restore_unsaved(o.outdir, err))
      err << fmt::format("resume: {} result(s) moved back from {}\n", n, unsaved_dir(o.outdir));
    skip_finished_runs(plan, o.outdir, err);
  } else if (!existing_results(o.outdir).empty()) {
    err << fmt::format("note: {} already holds results; new ones are added (--resume skips the runs done)\n", o.outdir);
  }
  CgroupRoots roots = detect_cgroup_roots();
  std::string iso_warning = resolve_all_isolation(plan.waves, roots, usable_version(roots));
  if (!iso_warning.empty()) err << iso_warning << "\n";

  std::ostream& log = o.json_to_stdout ? err : out;  // progress lines
  const std::string log_dir = o.outdir + "/logs";
  int failures = 0, total = 0;
  bool disk_full = false;
  install_interrupt_handlers();
  for (std::size_t w = 0; w < plan.waves.size() && interrupt_signal() == 0; ++w) {
    if (plan.waves[w].empty()) continue;  // every run of it done already (--resume)
    if (!enough_space(o.outdir, o.min_free_mb, err)) {
      disk_full = true;
      break;
    }
    for (const auto& cmd : plan.wave_prepare[w]) {
      int rc = run_shell(cmd);
      if (rc != 0)
        err << fmt::format("warning: prepare command `{}` for test {} failed (status {}); continuing\n", cmd,
                           plan.wave_test[w], rc);
    }
    log << fmt::format("[{}/{}] {}: {} process{} ...\n", w + 1, plan.waves.size(), plan.waves[w].front().name,
                       plan.waves[w].size(), plan.waves[w].size() == 1 ? "" : "es");
    log.flush();
    double wave_start = now_epoch_s();
    auto results = run_wave(plan.waves[w], log_dir);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& s = plan.waves[w][i];
      const auto& r = results[i];
      ++total;
      if (r.ok()) {
        log << fmt::format("{} J{} OK {:.1f}s\n", s.name, s.job_id, r.wall_s);
        continue;
      }
      ++failures;
      auto doc = failure_result(plan.waves[w], results, i);
      log << fmt::format("{} J{} FAIL {:.1f}s ({}; log: {})\n", s.name, s.job_id, r.wall_s,
                         doc["error"].get<std::string>(), r.log_path);
      // Exit 3: the run wrote its result elsewhere (parked; --resume moves it back).
      if (r.exit_code != kRunExitResultParked && !has_result_file(o.outdir, s.name, s.job_id, wave_start)) {
        try {
          if (is_secondary_rank(s)) doc["sub_job"] = true;  // the group's failure is rank 0's (plan.hpp)
          write_json_atomic(o.outdir + "/" + result_file_name(s.name, s.job_id, true), doc);
        } catch (const std::exception& e) {
          err << "error: " << e.what() << "\n";
        }
      }
    }
    if (has_unsaved(o.outdir)) {
      err << fmt::format("error: results could not be written to {} (disk full?); they are kept in {}\n", o.outdir,
                         unsaved_dir(o.outdir));
      disk_full = true;
      break;
    }
  }
  if (disk_full)
    err << fmt::format("stopped: free space in {}, then run the same command with --resume to finish the suite\n",
                       o.outdir);
  if (int sig = interrupt_signal()) {
    err << fmt::format(
        "interrupted by signal {}: children stopped, unfinished runs recorded as interrupted; run the "
        "same command with --resume to finish the suite\n",
        sig);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  log << fmt::format("total: {} processes, {} failed, {:.1f}s\n", total, failures, secs);
  if (o.json_to_stdout) print_results(o.outdir, out);
  if (int sig = interrupt_signal()) return 128 + sig;
  return failures == 0 && !disk_full ? 0 : 1;
}

}  // namespace milabench
