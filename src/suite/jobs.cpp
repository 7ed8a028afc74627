#include "suite/jobs.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "devices/gpu_ids.hpp"
#include "launch/devices.hpp"
#include "launch/interrupt.hpp"
#include "launch/isolation.hpp"
#include "launch/lifeline.hpp"
#include "launch/self_exe.hpp"
#include "launch/topology.hpp"
#include "results/atomic_write.hpp"
#include "results/failure_kind.hpp"
#include "results/input_checks.hpp"
#include "results/result_name.hpp"
#include "results/result_scan.hpp"
#include "results/run_exit.hpp"
#include "store/recorder.hpp"
#include "suite/jobs_checks.hpp"
#include "suite/outdir_lock.hpp"
#include "suite/plan.hpp"
#include "suite/profile.hpp"
#include "suite/slurm_launch.hpp"
#include "sys/dirs.hpp"

namespace milabench {

namespace {

// Prints every result file of `dir` (sorted by name) on `out`.
void print_results(const std::string& dir, std::ostream& out) {
  for (const auto& f : json_files_in(dir)) {
    std::ifstream in(f);
    out << in.rdbuf() << "\n";
  }
}

// The tests of the plan, in order, as their runs will get them.
std::vector<TestArguments> planned_tests(const Profile& profile, const JobsOptions& o) {
  std::vector<TestArguments> tests;
  for (const auto& t : profile.tests)
    if (o.names.empty() || std::find(o.names.begin(), o.names.end(), t.name) != o.names.end())
      tests.push_back({t.name, t.experiment, run_arguments(t, o.extra_args)});
  return tests;
}

// One "error: PROFILE: test "T": problem" line per problem on err; false when any.
bool preflight_ok(const Profile& profile, const JobsOptions& o, std::ostream& err) {
  std::string lines;
  try {
    lines = o.preflight(planned_tests(profile, o), o.dataroot);
  } catch (const std::exception& e) {
    err << fmt::format("error: cannot check the tests of {} before running them: {}\n", profile.path, e.what());
    return false;
  }
  const auto problems = decode_args_check_problems(lines);
  for (const auto& p : problems) err << fmt::format("error: {}: test \"{}\": {}\n", profile.path, p.test, p.problem);
  return problems.empty();
}

// Result files in outdir of this plan's tests run with other arguments
// (fixable failures aside: they are not measurements). One line per test.
std::vector<std::string> mixed_arguments(const JobPlan& plan, const Profile& profile, const JobsOptions& o) {
  std::map<std::string, std::vector<std::string>> expected;  // run name -> normalised arguments
  for (std::size_t w = 0; w < plan.waves.size(); ++w)
    for (const auto& t : profile.tests)
      if (t.name == plan.wave_test[w]) {
        std::vector<std::string> words;
        for (const auto& a : run_arguments(t, o.extra_args)) words.push_back(normalize_number_word(a));
        for (const auto& s : plan.waves[w]) expected[s.name] = words;
      }
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& a : v) out += (out.empty() ? "" : " ") + a;
    return terminal_safe(out.empty() ? "(none)" : out);
  };
  std::map<std::string, std::string> lines;
  for (const auto& [key, r] : existing_results(o.outdir)) {
    auto it = expected.find(key.first);
    if (it == expected.end() || !r.has_arguments || fixable_failure(r.failure_kind) || r.arguments == it->second)
      continue;
    lines.emplace(key.first, fmt::format("error: {} holds results of {} run with other arguments ({}), not ({}); use "
                                         "another -o, or --mixed-arguments to add to them anyway",
                                         o.outdir, key.first, join(r.arguments), join(it->second)));
  }
  std::vector<std::string> out;
  for (auto& [name, line] : lines) out.push_back(line);
  return out;
}

// Drops from the plan every run with a result in outdir, except failures a
// user can fix (fixable_failure): those run again and their old file moves
// to outdir/superseded/, so the new result does not duplicate it and nothing
// is deleted. The ranks of a group (scaling.K) only make sense together:
// rank 0's result decides for the whole wave.
void skip_finished_runs(JobPlan& plan, const std::string& outdir, std::ostream& err) {
  auto done = existing_results(outdir);
  auto finished = [&](const ProcessSpec& s) {
    auto it = done.find({s.name, s.job_id});
    return it != done.end() && (it->second.success || !fixable_failure(it->second.failure_kind));
  };
  const std::string superseded = outdir + "/superseded";
  int skipped = 0, again = 0;
  std::map<std::string, int> kinds;
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
      if (it != done.end()) {  // a fixable failure, or a rank of a group that runs again
        const std::string& from = it->second.path;
        const std::string to = superseded + "/" + from.substr(from.rfind('/') + 1);
        if (!make_dirs(superseded) || ::rename(from.c_str(), to.c_str()) != 0)
          ::unlink(from.c_str());  // cannot keep it aside: it must not count twice
        ++again;
        ++kinds[it->second.failure_kind.empty() ? "other rank" : it->second.failure_kind];
      }
      keep.push_back(std::move(spec));
    }
    wave = std::move(keep);
  }
  std::string why;
  for (const auto& [k, n] : kinds) why += fmt::format("{}{} {}", why.empty() ? "" : ", ", k, n);
  err << fmt::format(
      "resume: {} run(s) already have a result and are skipped; {} run(s) that failed for a reason "
      "you can fix run again{}\n",
      skipped, again, again ? fmt::format(" ({}; old files moved to {})", why, superseded) : "");
}

// Whether a run that exited 0 left no result in outdir (local launch: a
// Slurm step's tasks name their own files; ranks > 0 of a group write none
// the summary counts).
bool result_lost(const JobsOptions& o, const ProcessSpec& s, const ResultFolderState& before) {
  return o.launcher == "local" && !is_secondary_rank(s) && !has_result_file(o.outdir, s.name, s.job_id, before);
}

bool has_unsaved(const std::string& outdir) { return !json_files_in(unsaved_dir(outdir)).empty(); }

// The option checks that need no profile; fills in the temporary -o of
// --json. Returns "" or the line to print (exit 2).
std::string options_problem(JobsOptions& opt, std::ostream& err) {
  if (opt.profile.empty()) return "error: no profile given";
  if (opt.json_to_stdout) {
    char tmpl[] = "/tmp/milarun-results-XXXXXX";
    if (!::mkdtemp(tmpl)) return "error: cannot create a temporary results folder; pass -o OUTDIR";
    opt.outdir = tmpl;
    err << fmt::format("milarun jobs: no -o: results kept in {}, JSON printed on stdout\n", opt.outdir);
  }
  if (opt.outdir.empty()) return "error: no output directory given (-o OUTDIR or MILARUN_OUTROOT)";
  if (opt.dataroot.empty()) return "error: no data root given (-d DATAROOT or MILARUN_DATAROOT)";
  return jobs_options_problem(opt);
}

// The plan of the suite (plan.hpp) for these options on this machine.
// Throws ProfileError or std::runtime_error with one line.
JobPlan plan_suite(const JobsOptions& o, const Profile& profile) {
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
  if (o.stop_at_count) in.extra_args.push_back("--stop-at-count");
  in.no_cgexec = o.no_cgexec;
  in.gpu_ids = detect_gpu_ids();
  in.devices = o.devices > 0 ? o.devices : default_device_count(in.gpu_ids.size(), allowed_cpus().size());
  in.cpu_partitions = device_cpu_partitions(in.gpu_ids, in.devices);
  // --launcher slurm (issue 5): waves become srun steps over the allocation's nodes.
  if (o.launcher != "local" && o.launcher != "slurm")
    throw ProfileError(fmt::format("--launcher must be local or slurm (got \"{}\")", o.launcher));
  if (o.launcher == "slurm") {
    SlurmAllocation a = slurm_allocation();
    in.launcher = Launcher::Slurm, in.slurm_nodes = a.nodes, in.slurm_cpus_per_node = a.cpus_per_node;
  }
  return build_plan(profile, in);
}

// What a suite counts over its waves.
struct SuiteTally {
  int failures = 0, total = 0, lost = 0;
  bool disk_full = false, outdir_gone = false;  // why it stopped early
};

// One line per run of a finished wave (OK, FAIL, LOST) and the FAIL file of
// each failed run that wrote none. Returns whether a run could not write its
// result to -o (exit 3: parked, or printed in its log).
bool account_wave(const JobsOptions& o, const std::vector<ProcessSpec>& wave, const std::vector<ProcessResult>& results,
                  const ResultFolderState& before, SuiteTally& tally, std::ostream& log, std::ostream& err) {
  bool parked = false;
  int& failures = tally.failures;
  int& lost = tally.lost;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& s = wave[i];
    const auto& r = results[i];
    ++tally.total;
    if (r.ok() && !result_lost(o, s, before)) {
      const auto rec = run_result(o.outdir, s.name, s.job_id, before);
      const std::string skipped = rec ? skipped_inputs_note(*rec) : "";
      if (rec && rec->skipped_share() > kMaxSkippedInputShare) {  // the summary counts it failed (bad_data)
        ++failures;
        log << fmt::format("{} J{} FAIL {:.1f}s (bad_data: {}, over the {:g}% a run may skip; fix the data)\n", s.name,
                           s.job_id, r.wall_s, skipped, kMaxSkippedInputShare * 100);
        continue;
      }
      std::string notes = skipped;
      if (const std::string c = rec ? contention_note(*rec) : ""; !c.empty()) notes += (notes.empty() ? "" : "; ") + c;
      log << fmt::format("{} J{} OK {:.1f}s{}\n", s.name, s.job_id, r.wall_s, notes.empty() ? "" : " (" + notes + ")");
      continue;
    }
    if (r.ok()) {  // exit 0, yet no result in -o: the run's result is gone
      ++failures, ++lost;
      log << fmt::format("{} J{} LOST {:.1f}s (it ended well but its result is not in {}; log: {})\n", s.name, s.job_id,
                         r.wall_s, o.outdir, r.log_path);
      continue;
    }
    if (const auto rec = run_result(o.outdir, s.name, s.job_id, before); rec && rec->success) {
      // Stopped after it wrote its result (a stop signal or a timeout while it exited): the result is kept and
      // counted, so the line says OK, and why it ended.
      log << fmt::format("{} J{} OK {:.1f}s (its result was written before it ended: {})\n", s.name, s.job_id, r.wall_s,
                         failure_text(r, s));
      continue;
    }
    ++failures;
    parked = parked || r.exit_code == kRunExitResultParked;
    auto doc = failure_result(wave, results, i);
    log << fmt::format("{} J{} FAIL {:.1f}s ({}; log: {})\n", s.name, s.job_id, r.wall_s,
                       doc["error"].get<std::string>(), r.log_path);
    // Exit 3: the run wrote its result elsewhere (parked; --resume moves it back).
    if (r.exit_code != kRunExitResultParked && !has_result_file(o.outdir, s.name, s.job_id, before)) {
      try {
        if (is_secondary_rank(s)) doc["sub_job"] = true;  // the group's failure is rank 0's (plan.hpp)
        write_json_atomic(o.outdir + "/" + result_file_name(s.name, s.job_id, true), doc);
      } catch (const std::exception& e) {
        ++lost;
        err << "error: " << terminal_safe(e.what()) << "\n";
      }
    }
  }
  return parked;
}

// The plan as this folder and these options make it: warnings printed,
// --max-duration applied, parked results restored and finished runs dropped
// (--resume), isolation resolved. False when -o holds other arguments for a
// test (lines printed; exit 2).
bool fit_plan_to_folder(JobPlan& plan, const Profile& profile, const JobsOptions& o, std::ostream& err) {
  for (const auto& w : plan.warnings) err << w << "\n";
  if (o.max_duration_s > 0)
    for (auto& wave : plan.waves)
      for (auto& spec : wave) spec.timeout_s = o.max_duration_s;
  if (o.resume)
    if (int n = restore_unsaved(o.outdir, err))
      err << fmt::format("resume: {} result(s) moved back from {}\n", n, unsaved_dir(o.outdir));
  if (!o.mixed_arguments) {
    auto mixed = mixed_arguments(plan, profile, o);
    for (const auto& line : mixed) err << line << "\n";
    if (!mixed.empty()) return false;
  }
  if (o.resume) {
    note_more_repeats(plan, o, err);
    skip_finished_runs(plan, o.outdir, err);
  } else if (!existing_results(o.outdir).empty()) {
    err << fmt::format("note: {} already holds results; new ones are added (--resume skips the runs done)\n", o.outdir);
  }
  CgroupRoots roots = detect_cgroup_roots();
  std::string iso_warning = resolve_all_isolation(plan.waves, roots, usable_version(roots));
  if (!iso_warning.empty()) err << iso_warning << "\n";
  if (std::string shared = shared_core_warning(plan.waves); !shared.empty()) err << shared << "\n";
  return true;
}

// Runs the waves in order until the last, a stop signal, a vanished -o or
// a full disk (flags in `tally`); records each wave in the store.
void run_waves(const JobsOptions& o, const JobPlan& plan, const std::string& log_dir, store::SuiteRecorder& recorder,
               SuiteTally& tally, std::ostream& log, std::ostream& err) {
  install_interrupt_handlers();
  for (std::size_t w = 0; w < plan.waves.size() && interrupt_signal() == 0; ++w) {
    if (plan.waves[w].empty()) continue;  // every run of it done already (--resume)
    if (!outdir_still_there(o.outdir, err)) {
      tally.outdir_gone = true;
      break;
    }
    if (!enough_space(o.outdir, o.min_free_mb, err)) {
      tally.disk_full = true;
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
    const ResultFolderState before = result_folder_state(o.outdir);
    auto results = run_wave(plan.waves[w], log_dir);
    const bool parked_in_wave = account_wave(o, plan.waves[w], results, before, tally, log, err);
    recorder.record_new();
    if (has_unsaved(o.outdir) || parked_in_wave) {  // no later run could keep its result either
      err << fmt::format(
          "error: results could not be written to {} ({}); they are kept in {}, or at the end of their run's log "
          "when that failed too\n",
          o.outdir, free_space_note(o.outdir), unsaved_dir(o.outdir));
      tally.disk_full = true;
      break;
    }
  }
}

// The closing lines of a suite that did not end normally: lost results, a
// full disk, a stop signal, each with how to finish it.
void print_stop_lines(const JobsOptions& o, int lost, bool disk_full, std::ostream& err) {
  if (lost > 0)
    err << fmt::format(
        "error: {} result(s) could not be kept in {} (listed above); run the same command with "
        "--resume to run them again\n",
        lost, o.outdir);
  if (disk_full)
    err << fmt::format("stopped: free space in {}, then run the same command with --resume to finish the suite\n",
                       o.outdir);
  if (int sig = interrupt_signal()) {
    err << fmt::format(
        "interrupted by signal {}: children stopped, unfinished runs recorded as interrupted; run the "
        "same command with --resume to finish the suite\n",
        sig);
  }
}

}  // namespace

int run_jobs(const JobsOptions& o_in, std::ostream& out, std::ostream& err) {
  auto t0 = std::chrono::steady_clock::now();
  JobsOptions opt = o_in;
  const JobsOptions& o = opt;
  if (std::string why = options_problem(opt, err); !why.empty()) {
    err << why << "\n";
    return 2;
  }

  Profile profile;
  try {
    profile = load_profile(o.profile);
  } catch (const ProfileError& e) {
    err << "error: " << terminal_safe(e.what()) << "\n";
    return 2;
  }

  if (std::string why = min_duration_problem(profile, o); !why.empty()) {
    err << why << "\n";
    return 2;
  }

  JobPlan plan;
  try {
    plan = plan_suite(o, profile);
  } catch (const std::exception& e) {
    err << "error: " << terminal_safe(e.what()) << "\n";
    return 2;
  }

  // -o is created only once every check passed; its closest existing folder must be writable.
  if (std::string why = outdir_problem(o.outdir); !why.empty()) {
    err << fmt::format("error: cannot write to output directory {}: {}\n", o.outdir, why);
    return 2;
  }
  if (o.preflight && !preflight_ok(profile, o, err)) return 2;  // nothing started, -o not created
  if (!make_dirs(o.outdir) || ::access(o.outdir.c_str(), W_OK) != 0) {
    err << fmt::format("error: cannot write to output directory {}: {}\n", o.outdir, std::strerror(errno));
    return 2;
  }
  OutdirLock lock;  // one suite per -o (outdir_lock.hpp), held until this function returns
  if (std::string why = lock.acquire(o.outdir); !why.empty()) {
    err << terminal_safe(why) << "\n";
    return 2;
  }
  SuiteLifeline lifeline;  // every run dies with this suite, whatever its prefix (launch/lifeline.hpp)
  if (std::string why = lifeline.open(); !why.empty()) err << why << "\n";
  if (!fit_plan_to_folder(plan, profile, o, err)) return 2;

  std::ostream& log = o.json_to_stdout ? err : out;  // progress lines
  // Every result file is written before it is recorded; the store never stops the suite.
  store::SuiteRecorder recorder(o.db, o.outdir, o.profile, err);
  const std::string log_dir = o.outdir + "/logs";
  if (!make_dirs(log_dir) || ::access(log_dir.c_str(), W_OK) != 0) {  // else the runs' output would go to the terminal
    err << fmt::format("error: cannot make the runs' log folder {}: {}; move what is in the way or use another -o\n",
                       log_dir, std::strerror(errno));
    return 2;
  }
  SuiteTally tally;
  run_waves(o, plan, log_dir, recorder, tally, log, err);
  print_stop_lines(o, tally.lost, tally.disk_full, err);
  recorder.finish();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  log << fmt::format("total: {} processes, {} failed, {:.1f}s\n", tally.total, tally.failures, secs);
  if (o.json_to_stdout) print_results(o.outdir, out);
  if (int sig = interrupt_signal()) return 128 + sig;
  return tally.failures == 0 && !tally.disk_full && !tally.outdir_gone ? 0 : 1;
}

}  // namespace milabench
