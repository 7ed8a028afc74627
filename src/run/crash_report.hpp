// A fatal signal's last words: on SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT
// the process writes one line naming the signal and a backtrace to stderr
// (the run's log), then dies of the same signal, so `milarun jobs` still sees
// the signal and records the run as it would have (docs/reliability.md). A
// crash inside libtorch or NCCL then says where it happened instead of only
// "Segmentation fault". Torch-free; handlers run on their own stack, so a
// stack overflow is reported too.
#pragma once

namespace milabench {

// Installs the handlers (idempotent). `program` prefixes the line.
void install_crash_report(const char* program);

}  // namespace milabench
