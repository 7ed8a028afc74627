#include "launch/lifeline.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace milabench {

SuiteLifeline::~SuiteLifeline() {
  if (write_fd_ >= 0) ::close(write_fd_);
  if (read_fd_ >= 0) ::close(read_fd_);
  if (write_fd_ >= 0) ::unsetenv(kLifelineEnv);
}

std::string SuiteLifeline::open() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return std::string("warning: no suite lifeline (pipe: ") + std::strerror(errno) + ")";
  // Runs inherit the read end only; jobs alone holds the write end.
  ::fcntl(fds[0], F_SETFD, 0);
  struct stat st {};
  if (::fstat(fds[0], &st) != 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return std::string("warning: no suite lifeline (fstat: ") + std::strerror(errno) + ")";
  }
  read_fd_ = fds[0], write_fd_ = fds[1];
  const std::string value = std::to_string(read_fd_) + ":" +
                            std::to_string(static_cast<unsigned long long>(st.st_dev)) + ":" +
                            std::to_string(static_cast<unsigned long long>(st.st_ino));
  ::setenv(kLifelineEnv, value.c_str(), 1);
  return "";
}

int lifeline_fd(const std::string& value) {
  unsigned long long dev = 0, ino = 0;
  int fd = -1;
  char tail = 0;
  if (std::sscanf(value.c_str(), "%d:%llu:%llu%c", &fd, &dev, &ino, &tail) != 3 || fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return -1;
  if (static_cast<unsigned long long>(st.st_dev) != dev || static_cast<unsigned long long>(st.st_ino) != ino) return -1;
  return fd;
}

bool watch_suite_lifeline() {
  const char* value = std::getenv(kLifelineEnv);
  if (!value) return false;
  const int fd = lifeline_fd(value);
  if (fd < 0) return false;
  std::thread([fd] {
    pollfd p{fd, POLLIN, 0};
    char byte;
    while (true) {
      const int n = ::poll(&p, 1, -1);
      if (n < 0 && errno == EINTR) continue;
      // jobs never writes: readable means hang-up (read returns 0) or an error.
      if (n < 0 || ::read(fd, &byte, 1) <= 0) break;
    }
    const char msg[] = "milarun: the suite (milarun jobs) ended; stopping this run and its prefix\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::kill(0, SIGKILL);
    ::_exit(137);
  }).detach();
  return true;
}

}  // namespace milabench
