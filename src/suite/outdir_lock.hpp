// One suite per output folder: `milarun jobs` holds an exclusive flock(2) on
// DIR/.milarun.lock for its whole life. The kernel drops the lock when the
// holder's last descriptor closes (exit, crash, kill -9), so a crashed suite
// never leaves the folder locked; the file itself stays and is harmless.
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
  // what to do. The descriptor is close-on-exec: runs do not inherit it.
  std::string acquire(const std::string& dir);

 private:
  int fd_ = -1;
};

}  // namespace milabench
