// Other processes on the run's CPUs: /proc/stat's per-CPU busy time against
// the run's own CPU time (monitor/cpu_share.hpp), through the monitor thread
// into the result's monitor.foreign_cpu, and the summary's reading of it.
#include "monitor/cpu_share.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "devices/nvml.hpp"
#include "monitor/monitor.hpp"
#include "monitor/time_share.hpp"
#include "monitor_fakes.hpp"
#include "results/result_record.hpp"
#include "scratch_dir.hpp"
#include "sys/cpus.hpp"
#include "sys/fake_clock.hpp"

using namespace milabench;

namespace {

const double kTick = static_cast<double>(sysconf(_SC_CLK_TCK));

std::string proc_stat(double b0, double b1) { return test::proc_stat_text({b0, b1}); }

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

void write_own(const std::string& dir, double cpu_s) {
  const long t = static_cast<long>(cpu_s * kTick + 0.5);
  put(dir + "/stat", "42 (run) S 1 42 42 0 -1 0 0 0 0 0 " + std::to_string(t) + " 0 0 0 20 0 1 0\n");
  put(dir + "/status", "VmHWM:\t1024 kB\nVmRSS:\t1024 kB\n");
}

}  // namespace

TEST(CpuShare, BusySecondsAreSummedOverTheListedCpusOnly) {
  const auto dir = test::scratch_dir("cpu_share_test");
  put(dir + "/stat", proc_stat(3.0, 5.0));
  std::string why;
  EXPECT_NEAR(read_cpus_busy_s(dir + "/stat", {1}, why).value(), 5.0, 1.5 / kTick);
  EXPECT_NEAR(read_cpus_busy_s(dir + "/stat", {0, 1}, why).value(), 8.0, 1.5 / kTick);
  EXPECT_FALSE(read_cpus_busy_s(dir + "/stat", {0, 2}, why).has_value());
  EXPECT_NE(why.find("no line for CPU 2"), std::string::npos) << why;
  EXPECT_FALSE(read_cpus_busy_s(dir + "/missing", {0}, why).has_value());
  EXPECT_NE(why.find("cannot read"), std::string::npos) << why;
  const auto mine = allowed_cpus();  // the real file has a line for each CPU this process may use
  ASSERT_FALSE(mine.empty());
  EXPECT_GE(read_cpus_busy_s("/proc/stat", mine, why).value_or(-1), 0.0) << why;
}

// Interval shares are what others used of the CPUs' capacity, clamped to
// [0, 1] (counters sampled a moment apart can cross); a window weighs each
// interval by its overlap.
TEST(CpuShare, WindowShareWeighsIntervalsByTheirOverlap) {
  TimeShare f(2);  // others' seconds (busy less own) on 2 CPUs
  EXPECT_FALSE(f.range().has_value());
  f.add_count(10, 100 - 50);
  f.add_count(11, 102 - 51);    // busy 2 of 2, own 1: others 0.5
  f.add_count(12, 103 - 52);    // busy 1, own 1: others 0
  f.add_count(12, 999 - 0);     // not later: ignored
  f.add_count(14, 103.5 - 53);  // own more than busy: clamped to 0
  EXPECT_DOUBLE_EQ(f.share_between(10, 11).value(), 0.5);
  EXPECT_DOUBLE_EQ(f.share_between(11, 12).value(), 0.0);
  EXPECT_DOUBLE_EQ(f.share_between(10.5, 11.5).value(), 0.25);
  EXPECT_DOUBLE_EQ(f.share_between(10, 14).value(), 0.125);
  EXPECT_FALSE(f.share_between(20, 30).has_value());
  auto r = f.range().value();
  EXPECT_DOUBLE_EQ(r.min, 0.0);
  EXPECT_DOUBLE_EQ(r.max, 0.5);
  EXPECT_DOUBLE_EQ(r.mean, 0.125);
}

// The monitor reads both counters at each sample of its clock; stop() gets
// the summary window and reports the share in it beside the per-interval
// range.
TEST(CpuShare, MonitorRecordsWhatOtherProcessesUsedInTheWindow) {
  const auto dir = test::scratch_dir("cpu_share_monitor");
  put(dir + "/proc_stat", proc_stat(0, 0));
  write_own(dir, 0);
  FakeClock clock;
  MonitorOptions o = test::fake_monitor_options(clock);
  o.proc_dir = dir;
  o.proc_stat = dir + "/proc_stat";
  o.cpus = {0, 1};
  Monitor m(o);
  const double t0 = clock.now();
  m.start();
  put(dir + "/proc_stat", proc_stat(1, 1));  // both CPUs busy, the run used one: others took half
  write_own(dir, 1);
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 2));
  put(dir + "/proc_stat", proc_stat(2, 1.5));  // 1.5 s busy, all of it the run's
  write_own(dir, 2.5);
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 3));
  const auto whole = m.stop(std::make_pair(t0 + 1.0, t0 + 2.0));
  const auto f = whole["monitor"]["foreign_cpu"];
  ASSERT_TRUE(f.is_object()) << whole.dump();
  EXPECT_EQ(f["cpus"].get<int>(), 2);
  EXPECT_NEAR(f["window_share"].get<double>(), 0.0, 1e-9);
  EXPECT_NEAR(f["share"]["max"].get<double>(), 0.5, 1e-9);
  EXPECT_NEAR(f["share"]["mean"].get<double>(), 0.25, 1e-9);

  o.cpus = {0, 5};  // a CPU the file does not list: no reading, a note instead
  test::expect_unread(o, "foreign_cpu", "foreign cpu: ");
}

// What the summary counts as contended: the window share when the run had
// its CPUs' whole capacity (no CPU quota below them), over 10%.
TEST(CpuShare, ARunIsContendedOnlyOverTheThresholdAndWithoutAQuota) {
  auto record = [](double share, int usable) {
    nlohmann::json doc = {{"name", "t"}, {"success", true}, {"job_id", "0.0"}};
    doc["monitor"] = {{"foreign_cpu", {{"cpus", 4}, {"usable_cpus", usable}, {"window_share", share}}}};
    return parse_result_record(doc).value();
  };
  EXPECT_TRUE(record(0.3, 4).contended());
  EXPECT_DOUBLE_EQ(record(0.3, 4).foreign_cpu_share.value(), 0.3);
  EXPECT_FALSE(record(0.05, 4).contended());
  EXPECT_FALSE(record(0.3, 2).contended());  // a quota of 2 of the 4 CPUs
  EXPECT_FALSE(record(0.3, 2).foreign_cpu_share.has_value());
  EXPECT_FALSE(record(1.5, 4).foreign_cpu_share.has_value());  // not a share
  EXPECT_FALSE(parse_result_record({{"name", "t"}, {"success", true}}).value().foreign_cpu_share.has_value());
  EXPECT_EQ(contention_text(record(0.3, 4)), "other processes used 30% of its CPUs during its summary window");
  EXPECT_EQ(contention_text(record(0.05, 4)), "");
}

// A CUDA run counts the processes with a CUDA context on its GPUs in its
// window, less its own; a CPU run ignores the GPUs it does not use.
TEST(CpuShare, AnotherProcessOnACudaRunsGpuMakesItContended) {
  auto record = [](bool cuda, int in_window) {
    nlohmann::json doc = {{"name", "t"}, {"success", true}, {"job_id", "0.0"}, {"cuda", cuda}};
    doc["gpu_monitor"] = {{"0", {{"compute_processes", {{"max", 3}, {"window_max", 1}}}}},
                          {"1", {{"compute_processes", {{"max", 3}, {"window_max", in_window}}}}}};
    return parse_result_record(doc).value();
  };
  EXPECT_EQ(record(true, 3).other_gpu_processes.value(), 2);
  EXPECT_TRUE(record(true, 3).contended());
  EXPECT_EQ(contention_text(record(true, 2)), "1 other process held its GPU during its summary window");
  EXPECT_FALSE(record(true, 1).contended());
  EXPECT_FALSE(record(false, 3).other_gpu_processes.has_value());
  nlohmann::json group = {{"name", "t"}, {"success", true}, {"cuda", true}, {"distributed", {{"world_size", 2}}}};
  group["gpu_monitor"] = {{"0", {{"compute_processes", {{"max", 2}, {"window_max", 2}}}}}};
  EXPECT_FALSE(parse_result_record(group).value().other_gpu_processes.has_value());  // its ranks, via CUDA IPC
}

// On the fake NVML (GPU 1 holds 2 processes), the monitor gives the most
// seen in the window, or the first sample after a window too short to hold
// one.
TEST(CpuShare, MonitorCountsTheProcessesOnAGpuInTheWindow) {
  FakeClock clock;
  Monitor m(test::fake_monitor_options(clock, true));
  const double t0 = clock.now();
  m.start();
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 2));
  auto g = m.stop(std::make_pair(t0 + 0.2, t0 + 0.4))["gpu_monitor"];
  EXPECT_EQ(g["1"]["compute_processes"]["window_max"], 2);
  EXPECT_EQ(g["0"]["compute_processes"]["window_max"], 0);
}
