#include "launch/interrupt.hpp"

#include <signal.h>

#include <initializer_list>

namespace milabench {

namespace {

volatile sig_atomic_t g_signal = 0;

void record(int sig) {
  if (g_signal == 0) g_signal = sig;
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = record;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking wait returns EINTR and the loop sees the flag
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

int interrupt_signal() { return g_signal; }

void reset_interrupt() { g_signal = 0; }

}  // namespace milabench
