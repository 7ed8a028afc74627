// The suite's lifeline: every process of a run dies with `milarun jobs`,
// whatever exec_prefix stands between them (issue 24, item 2).
//
// A prefix that forks instead of exec'ing (`/usr/bin/time`, `sh -c 'x; y'`)
// leaves the real run a grandchild of jobs: PR_SET_PDEATHSIG reaches only the
// direct child, so after `kill -9` of jobs the run would live on under PID 1.
// jobs therefore holds the write end of a pipe (close-on-exec) and every run
// inherits its read end, named in the environment. A worker that finds the
// variable watches the pipe; when the last write end closes (jobs ended in
// any way) the worker kills its own process group (its prefix included) with
// SIGKILL. Outside jobs the variable is absent and nothing is watched.
#pragma once
#include <string>

namespace milabench {

// The environment variable: "FD:DEV:INODE" of the inherited read end. The
// device and inode make a stray descriptor of the same number (e.g. through
// srun, which does not pass descriptors) count as no lifeline.
inline constexpr const char* kLifelineEnv = "MILARUN_SUITE_LIFELINE";

// Held by jobs for the life of a suite. open() makes the pipe and sets the
// variable in this process's environment, so every run started after it
// inherits both; returns "" or one line saying why not (the suite then runs
// without it: runs still die with jobs through PR_SET_PDEATHSIG when the
// prefix execs). The destructor closes the write end and unsets the variable.
class SuiteLifeline {
 public:
  SuiteLifeline() = default;
  SuiteLifeline(const SuiteLifeline&) = delete;
  SuiteLifeline& operator=(const SuiteLifeline&) = delete;
  ~SuiteLifeline();
  std::string open();

 private:
  int read_fd_ = -1, write_fd_ = -1;
};

// The worker side: when the variable names an inherited pipe, starts a
// detached thread that waits on it and, at hang-up, writes one line to stderr
// and sends SIGKILL to this process's group. Returns whether it watches.
bool watch_suite_lifeline();

// For tests: whether `value` (the variable's text) names descriptor `fd` as
// it is now (a FIFO of that device and inode); the descriptor number when it
// does, -1 otherwise.
int lifeline_fd(const std::string& value);

}  // namespace milabench
