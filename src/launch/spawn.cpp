#include "launch/spawn.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace milabench {

pid_t spawn(char* const argv[], const std::function<void()>& in_child) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  if (in_child) in_child();
  if (argv && argv[0]) ::execvp(argv[0], argv);
  const char msg[] = "milarun: exec failed: ";
  (void)!::write(2, msg, sizeof msg - 1);
  if (argv && argv[0]) (void)!::write(2, argv[0], std::strlen(argv[0]));
  (void)!::write(2, "\n", 1);
  _exit(127);
}

int wait_exit_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace milabench
