// Failures at the run boundary: the one place where the exceptions of a
// workload (libtorch's included) become a failure kind and one line of text.
// Typed, never by matching words in a message.
#pragma once
#include <string>

#include "results/failure_kind.hpp"

namespace milabench {

struct RunFailure {
  FailureKind kind = FailureKind::Exception;
  std::string message;  // one line for the result's "error" and the console
  std::string detail;   // the full text (libtorch's backtrace) for stderr / the run's log
};

// Classifies the exception being handled; call only inside a catch block.
// c10::OutOfMemoryError (CUDA), std::bad_alloc and HostOutOfMemory (a failed
// CPU allocation, see install_typed_cpu_oom) are "oom"; NonFiniteLoss is
// "nonfinite_loss"; LossCanaryFailed is "bad_result"; DataError is "bad_input"; anything else "exception".
RunFailure classify_current_exception();

// Wraps torch's CPU allocator so that a failed host allocation throws the
// typed HostOutOfMemory (a std::bad_alloc) instead of a generic c10::Error.
// Call once, before the workload allocates. Idempotent.
void install_typed_cpu_oom();

// The first line of `text`, without trailing blanks ("" stays "").
std::string first_line(const std::string& text);

}  // namespace milabench
