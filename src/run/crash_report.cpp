#include "run/crash_report.hpp"

#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cstdlib>

namespace milabench {
namespace {

const char* g_program = "milarun";
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

void write_str(const char* s) {
  if (write(STDERR_FILENO, s, strlen(s)) < 0) return;  // nothing else to do in a dying process
}

void on_fatal(int sig) {
  write_str("\n");
  write_str(g_program);
  write_str(": fatal signal ");
  const char* name = sigabbrev_np(sig);
  write_str(name ? name : "?");
  write_str(" (");
  const char* what = sigdescr_np(sig);
  write_str(what ? what : "?");
  write_str("); backtrace:\n");
  void* frames[64];
  const int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  signal(sig, SIG_DFL);  // die of the same signal: the exit status stays what it would have been
  raise(sig);
}

}  // namespace

void install_crash_report(const char* program) {
  static bool installed = false;
  if (installed) return;
  installed = true;
  g_program = program;
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc's unwinder now, not inside a handler
  static char stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = stack;
  ss.ss_size = sizeof(stack);
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_fatal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : kSignals) sigaction(sig, &sa, nullptr);
}

}  // namespace milabench
