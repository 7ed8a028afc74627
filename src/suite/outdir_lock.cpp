#include "suite/outdir_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace milabench {

namespace {

// The pid the holder wrote ("?" when the file holds none yet).
std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  return digits ? s : "?";
}

}  // namespace

OutdirLock::~OutdirLock() {
  if (fd_ >= 0) ::close(fd_);
}

std::string OutdirLock::acquire(const std::string& dir) {
  const std::string path = dir + "/" + kOutdirLockName;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW, 0644);
  if (fd < 0) return fmt::format("error: cannot lock output directory {}: {}: {}", dir, path, std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    std::string line = e == EWOULDBLOCK
                           ? fmt::format(
                                 "error: {} is in use by another milarun jobs (pid {}) or a run it started; wait for "
                                 "them to end, or use another -o",
                                 dir, holder_pid(fd))
                           : fmt::format("error: cannot lock output directory {}: {}", dir, std::strerror(e));
    ::close(fd);
    return line;
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the pid; a second suite then names the pid "?".
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  return "";
}

}  // namespace milabench
