// What became of each run of a suite: failure kinds, the failure result the
// orchestrator writes for a run that left none, and the result files already
// in an output folder (for --resume).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "launch/process.hpp"
#include "results/result_record.hpp"
#include "results/unsaved.hpp"

namespace milabench {

// Kinds a failed result's "failure_kind" takes (docs/result-format.md). From
// the orchestrator: exit, signal, timeout, oom, interrupted, bad_input,
// not_started. From the run itself: exception, oom, nonfinite_loss, bad_input.
FailureKind failure_kind_of(const ProcessResult& r);
std::string failure_kind(const ProcessResult& r);  // its JSON spelling

// One line for the log and the result's "error".
std::string failure_text(const ProcessResult& r, const ProcessSpec& s);

// The failure result document for a process that left no result file.
// `device` "" gives null.
nlohmann::json failure_result(const ProcessSpec& spec, const ProcessResult& r);

// The same for process i of a wave (specs and results in wave order). A
// process stopped because another of its group failed (stopped_for) reports
// that one's failure: its kind, and an error naming its job id, so a group's
// result (rank 0's) says why the group failed.
nlohmann::json failure_result(const std::vector<ProcessSpec>& wave, const std::vector<ProcessResult>& results,
                              std::size_t i);

// The result files of an output folder as a wave found them: name ->
// (device, inode, modification time in ns, size). A file the wave's runs
// wrote is one absent from it or changed since, whatever the clocks say: the
// file server's clock (NFS, a Slurm node's) and a clock stepped during the
// wave cannot hide a run's result or pass an older one off as it.
using ResultFolderState = std::map<std::string, std::tuple<unsigned long, unsigned long, long long, long long>>;
ResultFolderState result_folder_state(const std::string& outdir);

// Whether outdir holds a result file "<name>.J<job_id>.*.json" that is not
// in `before` as it was then.
bool has_result_file(const std::string& outdir, const std::string& name, const std::string& job_id,
                     const ResultFolderState& before);

// The run's own result in outdir ("<name>.J<job_id>.*.json" new or changed
// since `before`; the last by name), read as a ResultRecord; nullopt when
// there is none or it cannot be read.
std::optional<ResultRecord> run_result(const std::string& outdir, const std::string& name, const std::string& job_id,
                                       const ResultFolderState& before);

// "" for a run that skipped no input; else its jobs-line note, e.g. "3
// input(s) skipped, 0.06% of what it read".
std::string skipped_inputs_note(const ResultRecord& r);

// "" for a run that had its CPUs to itself; else its jobs-line note, e.g.
// "CONTENDED: other processes used 34% of its CPUs during its summary window"
// (results' contention_text).
std::string contention_note(const ResultRecord& r);

// A result file found in an output folder.
struct ExistingResult {
  std::string path;
  bool success = false;
  std::string failure_kind;    // "" when success or unknown
  bool has_arguments = false;  // the file records "arguments" (milarun run's argv after "--")
  std::vector<std::string> arguments;
};

// Failure kinds a user can fix before running again (a bad flag or data,
// missing data, a stop signal): `jobs --resume` runs these again.
inline bool fixable_failure(const std::string& kind) {
  return kind == "bad_input" || kind == "interrupted" || kind == "not_started";
}

// Result files of `outdir` keyed by (name, job_id) as their file names spell
// them. Unreadable files and files over kMaxResultFileBytes count as absent (that run is done again). When a
// run has several files, a success wins over a failure.
std::map<std::pair<std::string, std::string>, ExistingResult> existing_results(const std::string& outdir);

// Moves every *.json of unsaved_dir(outdir) into outdir. Returns how many
// moved; a file that cannot move stays where it is (message on err).
int restore_unsaved(const std::string& outdir, std::ostream& err);

}  // namespace milabench
