// SIGINT / SIGTERM / SIGHUP for the orchestrator: the handlers only record
// the signal; run_wave stops its children and `milarun jobs` records the
// unfinished runs as interrupted, then exits 128 + signal.
#pragma once

namespace milabench {

// Installs the recording handlers (idempotent).
void install_interrupt_handlers();

// The first signal received since install/reset, 0 when none.
int interrupt_signal();

// Forgets a received signal (tests).
void reset_interrupt();

}  // namespace milabench
