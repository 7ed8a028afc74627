#include "suite/jobs.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "launch/devices.hpp"
#include "launch/isolation.hpp"
#include "launch/topology.hpp"
#include "results/result_file.hpp"
#include "suite/plan.hpp"
#include "suite/profile.hpp"

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

int run_jobs(const JobsOptions& o, std::ostream& out, std::ostream& err) {
  auto t0 = std::chrono::steady_clock::now();
  if (o.profile.empty()) { err << "error: no profile given\n"; return 2; }
  if (o.outdir.empty()) { err << "error: no output directory given\n"; return 2; }
  if (o.dataroot.empty()) { err << "error: no data root given (-d)\n"; return 2; }
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
    plan = build_plan(profile, in);
  } catch (const ProfileError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }

  if (!make_dirs(o.outdir) || ::access(o.outdir.c_str(), W_OK) != 0) {
    err << fmt::format("error: cannot write to output directory {}: {}\n", o.outdir, std::strerror(errno));
    return 2;
  }
  for (const auto& w : plan.warnings) err << w << "\n";
  CgroupRoots roots = detect_cgroup_roots();
  std::string iso_warning = resolve_all_isolation(plan.waves, roots, usable_version(roots));
  if (!iso_warning.empty()) err << iso_warning << "\n";

  const std::string log_dir = o.outdir + "/logs";
  int failures = 0, total = 0;
  for (std::size_t w = 0; w < plan.waves.size(); ++w) {
    for (const auto& cmd : plan.wave_prepare[w]) {
      int rc = run_shell(cmd);
      if (rc != 0)
        err << fmt::format("warning: prepare command `{}` for test {} failed (status {}); continuing\n", cmd,
                           plan.wave_test[w], rc);
    }
    double wave_start = now_epoch_s();
    auto results = run_wave(plan.waves[w], log_dir);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& s = plan.waves[w][i];
      const auto& r = results[i];
      ++total;
      if (r.ok()) {
        out << fmt::format("{} J{} OK {:.1f}s\n", s.name, s.job_id, r.wall_s);
        continue;
      }
      ++failures;
      out << fmt::format("{} J{} FAIL {:.1f}s ({}; log: {})\n", s.name, s.job_id, r.wall_s, failure_text(r, s),
                         r.log_path);
      if (!has_result_file(o.outdir, s.name, s.job_id, wave_start)) {
        try {
          write_json_atomic(o.outdir + "/" + result_file_name(s.name, s.job_id, true), failure_result(s, r));
        } catch (const std::exception& e) {
          err << "error: " << e.what() << "\n";
        }
      }
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out << fmt::format("total: {} processes, {} failed, {:.1f}s\n", total, failures, secs);
  return failures == 0 ? 0 : 1;
}

}  // namespace milabench
