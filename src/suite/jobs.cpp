#include "suite/jobs.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "launch/devices.hpp"
#include "launch/isolation.hpp"
#include "launch/topology.hpp"
#include "results/result_file.hpp"
#include "suite/plan.hpp"
#include "suite/profile.hpp"
#include "suite/slurm_launch.hpp"

namespace milabench {

namespace {

double now_epoch_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string self_exe_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, n) : std::string("milarun");
}

std::string seconds_string(double s) { return argument_value_string(nlohmann::ordered_json(s)); }

std::string failure_text(const ProcessResult& r, const ProcessSpec& s) {
  if (!r.started) return "could not start";
  if (r.timed_out) return fmt::format("timeout after {} s", seconds_string(s.timeout_s));
  if (r.oom_killed) return fmt::format("out of memory: killed by the OOM killer of its cgroup ({})", s.cgroup);
  if (r.signal != 0) return fmt::format("killed by signal {}", r.signal);
  return fmt::format("exit code {}", r.exit_code);
}

}  // namespace

nlohmann::json failure_result(const ProcessSpec& spec, const ProcessResult& r) {
  nlohmann::json doc;
  doc["name"] = spec.name;
  doc["job_id"] = spec.job_id;
  doc["success"] = false;
  doc["error"] = failure_text(r, spec);
  doc["failure_kind"] =
      r.timed_out ? "timeout" : r.oom_killed ? "oom" : (r.started && r.signal != 0 ? "signal" : "exit");
  doc["device"] = spec.device.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.device);
  doc["metrics"] = nlohmann::json::object();
  doc["timings"] = nlohmann::json::object();
  if (!spec.isolation.record.empty()) doc["isolation"] = nlohmann::json::parse(spec.isolation.record, nullptr, false);
  return doc;
}

bool has_result_file(const std::string& outdir, const std::string& name, const std::string& job_id,
                     double since_epoch_s) {
  std::string prefix = name + ".J" + job_id + ".";
  DIR* d = opendir(outdir.c_str());
  if (!d) return false;
  bool found = false;
  while (dirent* e = readdir(d)) {
    std::string f = e->d_name;
    if (f.rfind(prefix, 0) != 0 || f.size() < 5 || f.compare(f.size() - 5, 5, ".json") != 0) continue;
    struct stat st{};
    if (::stat((outdir + "/" + f).c_str(), &st) != 0) continue;
    double mtime = st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9;
    if (mtime + 1.0 >= since_epoch_s) { found = true; break; }
  }
  closedir(d);
  return found;
}

namespace {

// Prints every result file of `dir` (sorted by name) on `out`.
void print_results(const std::string& dir, std::ostream& out) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string f = e->d_name;
      if (f.size() > 5 && f.compare(f.size() - 5, 5, ".json") == 0) files.push_back(dir + "/" + f);
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    out << in.rdbuf() << "\n";
  }
}

}  // namespace

int run_jobs(const JobsOptions& o_in, std::ostream& out, std::ostream& err) {
  auto t0 = std::chrono::steady_clock::now();
  JobsOptions opt = o_in;
  const JobsOptions& o = opt;
  if (o.profile.empty()) { err << "error: no profile given\n"; return 2; }
  if (opt.json_to_stdout) {
    char tmpl[] = "/tmp/milarun-results-XXXXXX";
    if (!::mkdtemp(tmpl)) { err << "error: cannot create a temporary results folder; pass -o OUTDIR\n"; return 2; }
    opt.outdir = tmpl;
    err << fmt::format("milarun jobs: no -o: results kept in {}, JSON printed on stdout\n", opt.outdir);
  }
  if (opt.outdir.empty()) { err << "error: no output directory given (-o OUTDIR or MILARUN_OUTROOT)\n"; return 2; }
  if (opt.dataroot.empty()) { err << "error: no data root given (-d DATAROOT or MILARUN_DATAROOT)\n"; return 2; }
  if (o.repeat < 1) { err << fmt::format("error: --repeat must be at least 1 (got {})\n", o.repeat); return 2; }
  if (o.devices < 0) { err << fmt::format("error: --devices must be positive (got {})\n", o.devices); return 2; }

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
  if (o.check_dataset) {
    std::set<std::string> seen;
    for (const auto& t : profile.tests) {
      if (!o.names.empty() && std::find(o.names.begin(), o.names.end(), t.name) == o.names.end()) continue;
      auto it = t.arguments.find("--dataset");
      if (it == t.arguments.end() || !it->is_string() || !seen.insert(it->get<std::string>()).second) continue;
      std::string msg = o.check_dataset(it->get<std::string>(), o.dataroot);
      if (!msg.empty()) err << fmt::format("warning: test {}: {}\n", t.name, msg);
    }
  }
  CgroupRoots roots = detect_cgroup_roots();
  std::string iso_warning = resolve_all_isolation(plan.waves, roots, usable_version(roots));
  if (!iso_warning.empty()) err << iso_warning << "\n";

  std::ostream& log = o.json_to_stdout ? err : out;  // progress lines
  const std::string log_dir = o.outdir + "/logs";
  int failures = 0, total = 0;
  for (std::size_t w = 0; w < plan.waves.size(); ++w) {
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
      log << fmt::format("{} J{} FAIL {:.1f}s ({}; log: {})\n", s.name, s.job_id, r.wall_s, failure_text(r, s),
                         r.log_path);
      if (!has_result_file(o.outdir, s.name, s.job_id, wave_start)) {
        try {
          auto doc = failure_result(s, r);
          if (is_secondary_rank(s)) doc["subjob"] = true;  // the group's failure is rank 0's (plan.hpp)
          write_json_atomic(o.outdir + "/" + result_file_name(s.name, s.job_id, true), doc);
        } catch (const std::exception& e) {
          err << "error: " << e.what() << "\n";
        }
      }
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  log << fmt::format("total: {} processes, {} failed, {:.1f}s\n", total, failures, secs);
  if (o.json_to_stdout) print_results(o.outdir, out);
  return failures == 0 ? 0 : 1;
}

}  // namespace milabench
