#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "devices/gpu_ids.hpp"
#include "driven_wave.hpp"
#include "launch/devices.hpp"
#include "launch/process.hpp"
#include "scratch_dir.hpp"
#include "sys/cpu_topology.hpp"
#include "test_files.hpp"

using namespace milabench;

namespace {

std::string tmpdir() { return milabench::test::scratch_dir("launch_test"); }

ProcessSpec sh(const std::string& script, const std::string& name) {
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", script};
  s.name = name;
  s.job_id = "0.0";
  s.timeout_s = 30;
  return s;
}

}  // namespace

TEST(Launch, ExitCodeAndLog) {
  auto dir = tmpdir();
  auto s = sh("echo hello; echo $MY_VAR >&2; exit 3", "t.exit");
  s.env["MY_VAR"] = "world";
  auto r = run_wave({s, sh("exit 0", "t.ok")}, dir + "/logs");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].exit_code, 3);
  EXPECT_FALSE(r[0].ok());
  EXPECT_TRUE(r[1].ok());
  EXPECT_EQ(r[0].log_path, dir + "/logs/t.exit.J0.0.log");
  EXPECT_EQ(milabench::test::read_text(r[0].log_path), "hello\nworld\n");
}

// Time stands still (FakeClock) until the test moves it past the timeout:
// the wave sends SIGTERM to the whole process group then, and not before.
TEST(Launch, TimeoutKillsGroup) {
  auto dir = tmpdir();
  auto s =
      sh("sleep 30 & echo $! > " + dir + "/bg.tmp; mv " + dir + "/bg.tmp " + dir + "/bg; sleep 30; exit 0", "t.sleep");
  s.timeout_s = 0.3;
  test::DrivenWave wave({s}, dir, 1.0, 10.0);
  ASSERT_TRUE(test::wait_for_file(dir + "/bg"));
  wave.advance(0.29);
  EXPECT_FALSE(wave.finished()) << "stopped before its timeout";
  wave.advance(0.02);
  auto r = wave.results();  // time frozen at 0.31 s: the kill grace never runs out
  EXPECT_TRUE(r[0].timed_out);
  EXPECT_EQ(r[0].signal, SIGTERM);
  EXPECT_DOUBLE_EQ(r[0].wall_s, 0.31);
  EXPECT_TRUE(test::wait_until_ended(test::read_pid(dir + "/bg"))) << "the background sleep of the group survived";
}

// A child that ignores SIGTERM gets SIGKILL once the kill grace has passed.
TEST(Launch, TimeoutEscalatesToKill) {
  auto dir = tmpdir();
  auto s = sh("trap '' TERM; touch " + dir + "/ready; sleep 30; sleep 30", "t.stubborn");
  s.timeout_s = 0.2;
  test::DrivenWave wave({s}, dir, 0.3, 10.0);
  ASSERT_TRUE(test::wait_for_file(dir + "/ready"));
  wave.advance(0.25);  // SIGTERM, ignored
  wave.advance(0.2);   // 0.2 s of the 0.3 s grace
  EXPECT_FALSE(wave.finished()) << "killed before the grace ran out";
  wave.advance(0.2);
  auto r = wave.results();
  EXPECT_TRUE(r[0].timed_out);
  EXPECT_EQ(r[0].signal, SIGKILL);
  EXPECT_DOUBLE_EQ(r[0].wall_s, 0.65);
}

// All processes of a wave run at once: each waits for the other two to
// have started (it would wait in vain, and fail, were they run in turn).
TEST(Launch, ParallelInOneWave) {
  auto dir = tmpdir();
  std::string barrier = "touch " + dir + "/started.$0; for i in $(seq 6000); do [ $(ls " + dir +
                        " | grep -c started) = 3 ] && exit 0; sleep 0.01; done; exit 1";
  std::vector<ProcessSpec> specs;
  for (std::string n : {"a", "b", "c"}) {
    specs.push_back(sh(barrier, n));
    specs.back().argv.push_back(n);  // $0
  }
  for (const auto& x : run_wave(specs, dir + "/logs")) EXPECT_TRUE(x.ok()) << x.exit_code;
}

TEST(Launch, AffinityAndThreadEnv) {
  auto cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  auto dir = tmpdir();
  auto s = sh("grep Cpus_allowed_list /proc/self/status | awk '{print $2}' > " + dir +
                  "/aff.txt; echo $OMP_NUM_THREADS $MKL_NUM_THREADS > " + dir + "/omp.txt",
              "t.aff");
  s.cpus = {cpus[0]};
  auto r = run_wave({s}, dir);
  ASSERT_TRUE(r[0].ok());
  EXPECT_EQ(milabench::test::read_text(dir + "/aff.txt"), std::to_string(cpus[0]) + "\n");
  EXPECT_EQ(milabench::test::read_text(dir + "/omp.txt"), "1 1\n");
}

TEST(Launch, ExecFailureIs127) {
  auto dir = tmpdir();
  ProcessSpec s;
  s.argv = {"/no/such/binary"};
  s.name = "t.missing";
  s.job_id = "0";
  auto r = run_wave({s}, dir);
  EXPECT_EQ(r[0].exit_code, 127);
}

TEST(Launch, ShellAndPath) {
  EXPECT_EQ(run_shell("exit 4"), 4);
  EXPECT_EQ(run_shell("true"), 0);
  EXPECT_FALSE(find_on_path("sh").empty());
  EXPECT_TRUE(find_on_path("definitely-not-a-program-xyz").empty());
}

TEST(Devices, CudaVisibleDevices) {
  EXPECT_EQ(visible_gpu_ids(std::string("")).size(), 0u);
  EXPECT_EQ(visible_gpu_ids(std::string("2,3")), (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(visible_gpu_ids(std::nullopt, "/nonexistent/dir").size(), 0u);
  auto dir = tmpdir();
  std::ofstream(dir + "/0000:01:00.0");
  std::ofstream(dir + "/0000:02:00.0");
  EXPECT_EQ(visible_gpu_ids(std::nullopt, dir), (std::vector<std::string>{"0", "1"}));
}

TEST(Devices, PartitionCpus) {
  auto p = partition_cpus({0, 1, 2, 3, 4, 5, 6}, 3);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(p[2], (std::vector<int>{4, 5}));
  EXPECT_THROW(partition_cpus({0, 1}, 3), std::runtime_error);
  EXPECT_EQ(cpu_list_string({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
}

// Ranks of one data-parallel run: one dies, the survivor (blocked, as a rank
// waiting for a dead peer would be) is stopped once the group grace has
// passed and says who got it stopped; a process outside the group is left
// alone.
TEST(Launch, AFailedGroupMemberStopsTheRestOfItsGroupOnly) {
  auto dir = tmpdir();
  auto rank0 = sh("sleep 30", "t.g");
  auto rank1 = sh("echo $$ > " + dir + "/p.tmp; mv " + dir + "/p.tmp " + dir + "/rank1.pid; kill -KILL $$", "t.g");
  rank1.job_id = "0-rank1";
  auto other = sh("for i in $(seq 6000); do [ -e " + dir + "/go ] && exit 0; sleep 0.01; done; exit 1", "t.other");
  rank0.group = rank1.group = "t.g.J0";
  test::DrivenWave wave({rank0, rank1, other}, dir, 1.0, 0.5);
  ASSERT_TRUE(test::wait_for_file(dir + "/rank1.pid"));
  pid_t pid1 = test::read_pid(dir + "/rank1.pid");
  while (::kill(pid1, 0) == 0) ::usleep(1000);  // gone (not a zombie) once the wave has reaped it
  wave.advance(0.0);                            // ... and marked its group
  wave.advance(0.49);
  EXPECT_FALSE(wave.finished()) << "stopped before the group grace ran out";
  wave.advance(0.02);  // rank0 gets SIGTERM now
  std::ofstream(dir + "/go");
  auto r = wave.results();
  EXPECT_EQ(r[1].signal, SIGKILL);
  EXPECT_EQ(r[1].stopped_for, -1);
  EXPECT_EQ(r[0].stopped_for, 1);
  EXPECT_EQ(r[0].signal, SIGTERM);
  EXPECT_FALSE(r[0].ok());
  EXPECT_DOUBLE_EQ(r[0].wall_s, 0.51);
  EXPECT_TRUE(r[2].ok()) << "outside the group: runs to its end";
}

// A group whose members all succeed is not disturbed; a member that fails on
// its own within the grace keeps its own outcome. (Time stands still: the
// grace never runs out.)
TEST(Launch, GroupMembersThatEndWithinTheGraceKeepTheirOwnOutcome) {
  auto dir = tmpdir();
  auto a = sh("exit 3", "t.h");
  auto b = sh("exit 4", "t.h");
  b.job_id = "0-rank1";
  a.group = b.group = "t.h.J0";
  auto r = test::DrivenWave({a, b}, dir, 1.0, 5.0).results();
  EXPECT_EQ(r[0].exit_code, 3);
  EXPECT_EQ(r[1].exit_code, 4);
  EXPECT_EQ(r[0].stopped_for, -1);
  EXPECT_EQ(r[1].stopped_for, -1);
  auto ok = test::DrivenWave({sh("exit 0", "t.i"), sh("exit 0", "t.i")}, dir, 1.0, 0.1).results();
  EXPECT_TRUE(ok[0].ok() && ok[1].ok());
}
