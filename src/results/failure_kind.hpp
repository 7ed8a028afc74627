// Why a run failed: the result's "failure_kind" (docs/result-format.md).
// One list for the run (written by `milarun run`), the orchestrator (a
// process that left no result) and the readers (summary, resume, report).
#pragma once
#include <optional>
#include <string>

namespace milabench {

enum class FailureKind {
  // Written by the run itself.
  Exception,      // the workload threw (not one of the kinds below)
  Oom,            // out of memory: an allocation failed, or the cgroup's OOM killer
  NonFiniteLoss,  // a loss read at a slice end was NaN or infinite
  BadInput,       // bad data (DataError) or, from jobs, exit code 2 (bad usage)
  // Written by `milarun jobs` for a process that left no result file.
  Exit,               // non-zero exit without a result
  Signal,             // killed by a signal
  Timeout,            // past its time limit
  Interrupted,        // the suite was stopped while it ran
  NotStarted,         // the suite was stopped before it started
  GroupMemberFailed,  // stopped because another rank of its group failed
  // Readers classify a success with bad numbers as BadResult; a run writes it
  // itself when its loss canary fails (training/loss_canary.hpp).
  BadResult,  // success true but a NaN metric or no usable rates; or a failed loss canary
  BadData,    // success true but it skipped more than kMaxSkippedInputShare of its inputs (result_record.hpp)
  Unknown,    // a failed result without a (known) kind
};

// The JSON spelling: "exception", "oom", "nonfinite_loss", "bad_input", "exit",
// "signal", "timeout", "interrupted", "not_started", "group_member_failed",
// "bad_result", "bad_data", "unknown".
const char* failure_kind_name(FailureKind k);
// nullopt for a spelling not in the list.
std::optional<FailureKind> parse_failure_kind(const std::string& s);

// Whether `milarun jobs --resume` runs it again (the run did not finish).
bool failure_is_unfinished(FailureKind k);

}  // namespace milabench
