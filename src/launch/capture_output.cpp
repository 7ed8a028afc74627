#include "launch/capture_output.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <stdexcept>

#include "launch/spawn.hpp"

namespace milabench {

std::string capture_output(const std::vector<std::string>& argv, const std::string& input) {
  int fd[2], in[2];
  if (argv.empty()) throw std::runtime_error("capture_output: no program");
  const std::string what = argv[0] + (argv.size() > 1 ? " " + argv[1] : "");
  if (::pipe(fd) != 0) throw std::runtime_error(what + " failed (cannot make a pipe)");
  if (::pipe(in) != 0) {
    ::close(fd[0]), ::close(fd[1]);
    throw std::runtime_error(what + " failed (cannot make a pipe)");
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = spawn(args.data(), [&] {
    ::dup2(fd[1], 1);
    ::dup2(in[0], 0);
    for (int f : {fd[0], fd[1], in[0], in[1]}) ::close(f);
  });
  ::close(fd[1]);
  ::close(in[0]);
  ::signal(SIGPIPE, SIG_IGN);  // a child that dies early: a write error, not our death
  for (std::size_t off = 0; pid > 0 && off < input.size();) {
    const ssize_t n = ::write(in[1], input.data() + off, input.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    off += static_cast<std::size_t>(n);
  }
  ::close(in[1]);
  ::signal(SIGPIPE, SIG_DFL);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd[0]);
  const int status = pid < 0 ? -1 : wait_exit_status(pid);
  if (status != 0)
    throw std::runtime_error(
        fmt::format("{} failed ({})", what, pid < 0 ? "cannot fork" : "exit status " + std::to_string(status)));
  return out;
}

}  // namespace milabench
