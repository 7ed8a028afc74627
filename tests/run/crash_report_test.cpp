// A crashing run says which signal and where, then dies of that signal.
#include "run/crash_report.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

// Exported (the test binary links with -rdynamic), so its name must show.
extern "C" __attribute__((noinline)) void milabench_crash_test_null_write() {
  volatile int* p = nullptr;
  *p = 1;
}

namespace milabench {
namespace {

// Runs `crash` in a child with the report installed; returns its stderr and
// wait status.
std::pair<std::string, int> crash_in_child(void (*crash)()) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    install_crash_report("crash-test");
    crash();
    _exit(0);
  }
  close(fds[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {err, status};
}

void call_abort() { abort(); }

TEST(CrashReport, ASegfaultNamesTheSignalPrintsABacktraceAndStillDiesOfIt) {
  auto [err, status] = crash_in_child(milabench_crash_test_null_write);
  ASSERT_TRUE(WIFSIGNALED(status)) << err;
  EXPECT_EQ(WTERMSIG(status), SIGSEGV);
  EXPECT_NE(err.find("crash-test: fatal signal SEGV"), std::string::npos) << err;
  EXPECT_NE(err.find("backtrace:"), std::string::npos) << err;
  EXPECT_NE(err.find("milabench_crash_test_null_write"), std::string::npos) << err;  // exported frames are named
}

TEST(CrashReport, AnAbortIsReportedAsSigabrt) {
  auto [err, status] = crash_in_child(call_abort);
  ASSERT_TRUE(WIFSIGNALED(status)) << err;
  EXPECT_EQ(WTERMSIG(status), SIGABRT);
  EXPECT_NE(err.find("fatal signal ABRT"), std::string::npos) << err;
}

}  // namespace
}  // namespace milabench
