// The one place milarun forks and execs a program: the suite's runs
// (process.hpp run_wave), the exec_prefix and prepare commands (run_shell)
// and the jobs pre-flight (capture_output.hpp) all start their child here.
// (`milarun` replacing itself by `milarun-torch`, cli/main.cpp, is an exec
// without a fork.)
#pragma once
#include <sys/types.h>

#include <functional>

namespace milabench {

// Forks; the child runs `in_child` and then execs argv (argv[0] searched on
// PATH unless it holds a '/'; argv null-terminated; the environment is
// `environ` as in_child left it). `in_child` runs between fork and exec, so
// it may only make async-signal-safe calls (dup2, close, open, write,
// setpgid, prctl, sched_setaffinity) and must not allocate; it may _exit.
// A failed exec writes "milarun: exec failed: ARGV0" on stderr and the child
// exits 127. Returns the child's pid, or -1 when fork failed (errno set).
pid_t spawn(char* const argv[], const std::function<void()>& in_child);

// Waits for `pid` (retrying EINTR). Returns its exit code, 128 + the signal
// that ended it, or -1 when it cannot be waited for.
int wait_exit_status(pid_t pid);

}  // namespace milabench
