// One suite per output folder: `milarun jobs` holds an exclusive flock(2) on
// DIR/.milarun.lock for its whole life, and so do its runs. The kernel drops
// the lock when the last descriptor closes (exit, crash, kill -9), so a
// crashed suite never leaves the folder locked once its runs are gone; the
// file itself stays and is harmless.
#pragma once
#include <string>

namespace milabench {

// The lock file's name inside an output folder.
inline constexpr const char* kOutdirLockName = ".milarun.lock";

class OutdirLock {
 public:
  OutdirLock() = default;
  OutdirLock(const OutdirLock&) = delete;
  OutdirLock& operator=(const OutdirLock&) = delete;
  ~OutdirLock();  // releases the lock (closes the descriptor)

  // Takes the lock on `dir` (which must exist) without waiting, and writes
  // this process's pid into the file. Returns "" when held; otherwise one
  // line naming the folder and, when another suite holds it, its pid and
  // what to do. The runs started afterwards inherit the descriptor, so the
  // lock holds until the last of them ends too: after a kill -9 of jobs, a
  // --resume cannot start a run beside a copy that still lives
  // (launch/lifeline.hpp makes such copies end at once).
  std::string acquire(const std::string& dir);

 private:
  int fd_ = -1;
};

}  // namespace milabench
