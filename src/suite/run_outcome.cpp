#include "suite/run_outcome.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <ostream>

#include "report/summary.hpp"
#include "results/argument_words.hpp"
#include "results/atomic_write.hpp"
#include "results/failure_kind.hpp"
#include "results/input_checks.hpp"
#include "results/result_document.hpp"
#include "results/result_name.hpp"
#include "results/result_record.hpp"
#include "results/result_scan.hpp"
#include "results/run_exit.hpp"
#include "results/unsaved.hpp"
#include "suite/profile.hpp"
#include "sys/read_file.hpp"

namespace milabench {

namespace {

std::string seconds_string(double s) { return argument_value_string(nlohmann::ordered_json(s)); }

// File names (no folder) of the JSON files directly in `dir`.
std::vector<std::string> json_files(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& p : json_files_in(dir)) names.push_back(p.substr(p.rfind('/') + 1));
  return names;
}

// What `milarun rerun` needs to run it again (experiment, dataroot,
// arguments, environment), read back from the `milarun run` command of the
// spec ("... run EXPERIMENT -d ROOT ... -- ARGS"); nullopt when it has none.
std::optional<RunRequest> run_request(const ProcessSpec& spec) {
  const auto& a = spec.argv;
  auto run = std::find(a.begin(), a.end(), "run");
  if (run == a.end() || run + 1 == a.end()) return std::nullopt;
  RunRequest q;
  q.experiment = *(run + 1);
  auto dd = std::find(run, a.end(), "--");
  for (auto it = run; it != dd && it + 1 != dd; ++it)
    if (*it == "-d") q.dataroot = *(it + 1);
  if (dd != a.end())  // recorded as `milarun run` records them (its identity for --resume)
    for (auto it = dd + 1; it != a.end(); ++it) q.arguments.push_back(normalize_number_word(*it));
  for (const char* k :
       {"CUDA_VISIBLE_DEVICES", "MILARUN_CPU_PARTITION"})  // the device it ran on (not a rank group's rendezvous)
    if (auto it = spec.env.find(k); it != spec.env.end()) q.environ[k] = it->second;
  return q;
}

}  // namespace

FailureKind failure_kind_of(const ProcessResult& r) {
  FailureKind k = FailureKind::Exit;
  if (r.interrupted)
    k = r.started ? FailureKind::Interrupted : FailureKind::NotStarted;
  else if (!r.started)
    k = FailureKind::NotStarted;
  else if (r.timed_out)
    k = FailureKind::Timeout;
  else if (r.stopped_for >= 0)
    k = FailureKind::GroupMemberFailed;
  else if (r.oom_killed)
    k = FailureKind::Oom;
  else if (r.signal != 0)
    k = FailureKind::Signal;
  else if (r.exit_code == kRunExitUsage)  // milarun run: unknown experiment or argument, nothing ran
    k = FailureKind::BadInput;
  return k;
}

std::string failure_kind(const ProcessResult& r) { return failure_kind_name(failure_kind_of(r)); }

std::string failure_text(const ProcessResult& r, const ProcessSpec& s) {
  if (r.interrupted && !r.started) return "not started: the suite was interrupted";
  if (r.interrupted) return "interrupted: the suite got a stop signal and stopped this run";
  if (!r.started) return "could not start";
  if (r.timed_out) return fmt::format("timeout after {} s", seconds_string(s.timeout_s));
  if (r.stopped_for >= 0) return "stopped: another process of its group failed";
  if (r.oom_killed) return fmt::format("out of memory: killed by the OOM killer of its cgroup ({})", s.cgroup);
  if (r.signal != 0) return fmt::format("killed by signal {}", r.signal);
  if (r.exit_code == 2) return "exit code 2: bad input (see the run's log)";
  if (r.exit_code == kRunExitResultParked)
    return "exit code 3: its result could not be written to -o (disk full or read-only?); it is kept under "
           "$TMPDIR/milarun-unsaved or, when that failed too, printed at the end of its log";
  return fmt::format("exit code {}", r.exit_code);
}

ResultDocument failure_document(const ProcessSpec& spec, const ProcessResult& r) {
  ResultDocument d;
  d.name = spec.name;
  d.job_id = spec.job_id;
  d.device_list = spec.device;
  d.failure = failure_kind_of(r);
  d.error = failure_text(r, spec);
  d.wall_time = r.wall_s;
  d.log = r.log_path;
  d.request = run_request(spec);
  if (!spec.isolation.record.empty()) d.isolation = nlohmann::json::parse(spec.isolation.record, nullptr, false);
  return d;
}

nlohmann::json failure_result(const ProcessSpec& spec, const ProcessResult& r) {
  return result_json(failure_document(spec, r));
}

nlohmann::json failure_result(const std::vector<ProcessSpec>& wave, const std::vector<ProcessResult>& results,
                              std::size_t i) {
  ResultDocument d = failure_document(wave.at(i), results.at(i));
  const int p = results[i].stopped_for;
  if (p >= 0 && static_cast<std::size_t>(p) < wave.size() && static_cast<std::size_t>(p) != i) {
    d.failure = failure_kind_of(results[p]);
    d.error = fmt::format("stopped: {} J{} of its group failed first ({})", wave[p].name, wave[p].job_id,
                          failure_text(results[p], wave[p]));
    d.failed_group_member = wave[p].job_id;
  }
  return result_json(d);
}

namespace {

// What tells one file from another at `path`: device, inode, mtime (ns), size; nullopt when it is gone.
std::optional<ResultFolderState::mapped_type> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::make_tuple(static_cast<unsigned long>(st.st_dev), static_cast<unsigned long>(st.st_ino),
                         st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, static_cast<long long>(st.st_size));
}

// Whether `f` of outdir is absent from `before` or not the file it was then.
bool new_since(const std::string& outdir, const std::string& f, const ResultFolderState& before) {
  const auto now = file_identity(outdir + "/" + f);
  const auto it = before.find(f);
  return now && (it == before.end() || it->second != *now);
}

// The result files of `name` run `job_id` that are new in outdir since `before`, sorted by name.
std::vector<std::string> new_result_files(const std::string& outdir, const std::string& name, const std::string& job_id,
                                          const ResultFolderState& before) {
  std::vector<std::string> out;
  for (const auto& f : json_files(outdir)) {
    const auto parsed = parse_result_file_name(f);
    if (parsed && parsed->name == name && parsed->job_id == job_id && new_since(outdir, f, before)) out.push_back(f);
  }
  return out;
}

}  // namespace

ResultFolderState result_folder_state(const std::string& outdir) {
  ResultFolderState state;
  for (const auto& f : json_files(outdir))
    if (const auto id = file_identity(outdir + "/" + f)) state[f] = *id;
  return state;
}

bool has_result_file(const std::string& outdir, const std::string& name, const std::string& job_id,
                     const ResultFolderState& before) {
  return !new_result_files(outdir, name, job_id, before).empty();
}

std::optional<ResultRecord> run_result(const std::string& outdir, const std::string& name, const std::string& job_id,
                                       const ResultFolderState& before) {
  const auto files = new_result_files(outdir, name, job_id, before);
  const std::string newest = files.empty() ? "" : files.back();  // by name: the latest time stamp
  if (newest.empty()) return std::nullopt;
  try {
    return parse_result_record(read_json_file(outdir + "/" + newest));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string skipped_inputs_note(const ResultRecord& r) {
  if (!(r.images_skipped > 0)) return "";
  return fmt::format("{:g} input(s) skipped, {:.2f}% of what it read", r.images_skipped, r.skipped_share() * 100);
}

std::string contention_note(const ResultRecord& r) {
  const std::string what = contention_text(r);
  return what.empty() ? "" : "CONTENDED: " + what;
}

std::map<std::pair<std::string, std::string>, ExistingResult> existing_results(const std::string& outdir) {
  std::map<std::pair<std::string, std::string>, ExistingResult> out;
  for (const auto& f : json_files(outdir)) {
    const auto parsed = parse_result_file_name(f);
    if (!parsed) continue;
    struct stat st {};
    if (::stat((outdir + "/" + f).c_str(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) > kMaxResultFileBytes)
      continue;  // over the limit: not read (the summary skips it with a warning)
    std::ifstream in(outdir + "/" + f);
    // The typed read the summary uses: a file it would skip does not count as done either.
    const auto rec = parse_result_record(nlohmann::json::parse(in, nullptr, false));
    if (!rec) continue;
    ExistingResult e;
    e.path = outdir + "/" + f;
    e.has_arguments = rec->arguments_recorded;
    e.arguments = rec->arguments;
    e.success = rec->success;
    if (!e.success && rec->failure_kind) e.failure_kind = failure_kind_name(*rec->failure_kind);
    auto [it, inserted] = out.emplace(std::make_pair(parsed->name, parsed->job_id), e);
    if (!inserted && e.success && !it->second.success) it->second = e;
  }
  return out;
}

int restore_unsaved(const std::string& outdir, std::ostream& err) {
  const std::string dir = unsaved_dir(outdir);
  int moved = 0;
  for (const auto& f : json_files(dir)) {
    const std::string from = dir + "/" + f, to = outdir + "/" + f;
    try {
      if (::rename(from.c_str(), to.c_str()) != 0) {  // another filesystem: copy, then remove
        std::string why;
        const auto bytes = read_whole_file(from, &why);
        if (!bytes) throw std::runtime_error(from + ": " + why);  // kept where it is: nothing is lost
        write_text_atomic(to, *bytes);
        ::unlink(from.c_str());
      }
      ++moved;
    } catch (const std::exception& e) {
      err << fmt::format("warning: result {} stays in {}: {}\n", f, dir, e.what());
    }
  }
  return moved;
}

}  // namespace milabench
