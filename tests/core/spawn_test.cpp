// launch/spawn.hpp: the one fork/exec, as run_wave, run_shell and
// capture_output use it.
#include "launch/spawn.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <string>

#include "launch/capture_output.hpp"
#include "launch/process.hpp"
#include "scratch_dir.hpp"
#include "test_files.hpp"

using namespace milabench;

TEST(Spawn, TheChildSetUpRunsBeforeExecAndTheProgramIsFoundOnPath) {
  const std::string out = test::scratch_dir("spawn") + "/out.txt";
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  std::string prog = "echo", word = "from the child";
  char* argv[] = {prog.data(), word.data(), nullptr};
  const pid_t pid = spawn(argv, [&] { ::dup2(fd, 1); });
  ::close(fd);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(wait_exit_status(pid), 0);
  EXPECT_EQ(test::read_text(out), "from the child\n");
}

TEST(Spawn, AProgramThatCannotBeExecutedExits127AndSaysWhich) {
  const std::string err = test::scratch_dir("spawn") + "/err.txt";
  const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  std::string prog = "/nonexistent/milarun-torch";
  char* argv[] = {prog.data(), nullptr};
  const pid_t pid = spawn(argv, [&] { ::dup2(fd, 2); });
  ::close(fd);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(wait_exit_status(pid), 127);
  EXPECT_EQ(test::read_text(err), "milarun: exec failed: /nonexistent/milarun-torch\n");
}

TEST(Spawn, ExitCodesAndSignalsReadAsAShellWould) {
  EXPECT_EQ(run_shell("exit 3"), 3);
  EXPECT_EQ(run_shell("kill -TERM $$"), 128 + SIGTERM);
  EXPECT_EQ(run_shell("true"), 0);
  EXPECT_EQ(capture_output({"/bin/sh", "-c", "cat; echo ."}, "in\n"), "in\n.\n");
  try {
    capture_output({"/bin/sh", "-c", "exit 4"}, "");
    ADD_FAILURE() << "a failing helper was taken as success";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("exit status 4"), std::string::npos) << e.what();
  }
}
