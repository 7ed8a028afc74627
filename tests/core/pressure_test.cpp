// The other ways a run loses its devices' capacity in its window, beside
// other processes on its CPUs (cpu_share_test.cpp): stalls on memory
// (the kernel's PSI, monitor/memory_pressure.hpp), CPUs throttled for heat
// (monitor/cpu_share.hpp) and a GPU slowed down for heat or a power brake
// (NVML's throttle reasons), from the files and the
// fake NVML through the monitor into the result record's contention signs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "devices/nvml.hpp"
#include "monitor/cpu_share.hpp"
#include "monitor/memory_pressure.hpp"
#include "monitor/monitor.hpp"
#include "monitor_fakes.hpp"
#include "results/result_record.hpp"
#include "scratch_dir.hpp"
#include "sys/fake_clock.hpp"

using namespace milabench;
namespace fs = std::filesystem;

namespace {

void put(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// A PSI file whose "full" line has stalled `full_s` seconds in all (its
// "some" line, twice as much: a neighbour's stalls, which do not count).
std::string psi(double full_s) {
  auto us = [](double s) { return std::to_string(static_cast<long>(s * 1e6)); };
  return "some avg10=1.50 avg60=0.20 avg300=0.00 total=" + us(2 * full_s) +
         "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=" + us(full_s) + "\n";
}

// A /proc/<pid> whose process has taken `major_faults` major page faults.
void write_process(const std::string& dir, long major_faults) {
  put(dir + "/stat", "42 (run) R 1 42 42 0 -1 0 100 0 " + std::to_string(major_faults) + " 0 5 5 0 0 20 0 1 0\n");
  put(dir + "/status", "VmHWM:\t1024 kB\nVmRSS:\t1024 kB\n");
}

nlohmann::json cuda_record(bool cuda) { return {{"name", "t"}, {"success", true}, {"job_id", "0.0"}, {"cuda", cuda}}; }

}  // namespace

TEST(MemoryPressure, TheFullLinesTotalIsReadInSeconds) {
  const auto dir = test::scratch_dir("psi_read");
  put(dir + "/memory", psi(2.5));
  EXPECT_DOUBLE_EQ(read_memory_stall_s(dir + "/memory").value(), 2.5);
  put(dir + "/some_only", "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n");  // an old kernel's system file
  EXPECT_FALSE(read_memory_stall_s(dir + "/some_only").has_value());
  put(dir + "/garbled", "full avg10=0.00 total=many\n");
  EXPECT_FALSE(read_memory_stall_s(dir + "/garbled").has_value());
  EXPECT_FALSE(read_memory_stall_s(dir + "/missing").has_value());
}

// The run's own cgroup v2 where its memory.pressure can be read (alone or
// in the hybrid layout's "unified" folder); else the system's; else a reason.
TEST(MemoryPressure, TheRunsOwnCgroupIsReadBeforeTheSystem) {
  const auto dir = test::scratch_dir("psi_find");
  put(dir + "/system", psi(1));
  put(dir + "/proc/cgroup", "0::/jobs/run7\n");
  put(dir + "/v2/jobs/run7/memory.pressure", psi(3));
  std::string why;
  auto s = find_memory_pressure(dir + "/proc", dir + "/v2", dir + "/system", why).value();
  EXPECT_EQ(s.scope, "cgroup /jobs/run7");
  EXPECT_EQ(s.path, dir + "/v2/jobs/run7/memory.pressure");
  put(dir + "/hybrid/unified/jobs/run7/memory.pressure", psi(3));
  EXPECT_EQ(find_memory_pressure(dir + "/proc", dir + "/hybrid", dir + "/system", why).value().scope,
            "cgroup /jobs/run7");
  put(dir + "/v1proc/cgroup", "4:memory:/jobs/run7\n0::/\n");  // cgroup v1 and the v2 root: the system's
  s = find_memory_pressure(dir + "/v1proc", dir + "/v2", dir + "/system", why).value();
  EXPECT_EQ(s.scope, "system");
  EXPECT_FALSE(find_memory_pressure(dir + "/v1proc", dir + "/v2", dir + "/none", why).has_value());
  EXPECT_NE(why.find("psi=0"), std::string::npos) << why;
  // This machine: a source, or a reason why there is none.
  why.clear();
  auto here = find_memory_pressure("/proc/self", "/sys/fs/cgroup", "/proc/pressure/memory", why);
  EXPECT_TRUE(here.has_value() != !why.empty()) << why;
}

// The monitor samples the stall counter and the run's major faults on its
// clock and gives the share of the summary window spent stalled and the
// faults per second in it.
TEST(MemoryPressure, MonitorRecordsTheWindowsStallShare) {
  const auto dir = test::scratch_dir("psi_monitor");
  put(dir + "/psi", psi(10));
  FakeClock clock;
  MonitorOptions o = test::fake_monitor_options(clock);
  o.proc_dir = dir + "/proc";  // no cgroup file: the system's file
  write_process(o.proc_dir, 1000);
  o.memory_pressure = dir + "/psi";
  Monitor m(o);
  const double t0 = clock.now();
  m.start();
  put(dir + "/psi", psi(10.25));  // a quarter of the first second
  write_process(o.proc_dir, 1010);
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 2));
  put(dir + "/psi", psi(11.0));  // three quarters of the second
  write_process(o.proc_dir, 1050);
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 3));
  const auto s = m.stop(std::make_pair(t0 + 1.0, t0 + 2.0))["monitor"]["memory_stall"];
  ASSERT_TRUE(s.is_object()) << s;
  EXPECT_EQ(s["scope"], "system");
  EXPECT_NEAR(s["window_share"].get<double>(), 0.75, 1e-9);
  EXPECT_NEAR(s["share"]["mean"].get<double>(), 0.5, 1e-9);
  EXPECT_NEAR(s["window_major_faults_per_s"].get<double>(), 40.0, 1e-9);

  o.memory_pressure = dir + "/none";
  test::expect_unread(o, "memory_stall", "memory stall: ");
}

// The CPUs' time throttled for heat: Intel's per-CPU counters (milliseconds)
// summed over the run's CPUs, over their capacity; a CPU without the counter
// leaves a note instead.
TEST(CpuThrottle, MonitorRecordsTheShareOfItsCpusTimeThrottledForHeat) {
  const auto dir = test::scratch_dir("cpu_throttle");
  auto throttled = [&](int cpu, long ms) {
    put(dir + "/cpu" + std::to_string(cpu) + "/thermal_throttle/core_throttle_total_time_ms", std::to_string(ms));
  };
  throttled(0, 5000);
  throttled(1, 7000);
  std::string why;
  EXPECT_DOUBLE_EQ(read_cpus_throttled_s(dir, {0, 1}, why).value(), 12.0);
  EXPECT_FALSE(read_cpus_throttled_s(dir, {0, 2}, why).has_value());
  EXPECT_NE(why.find("cpu2/thermal_throttle/core_throttle_total_time_ms"), std::string::npos) << why;
  FakeClock clock;
  MonitorOptions o = test::fake_monitor_options(clock);
  o.cpu_root = dir;
  o.cpus = {0, 1};
  Monitor m(o);
  const double t0 = clock.now();
  m.start();
  throttled(0, 6000);  // cpu0 throttled the whole second, cpu1 not: half the capacity
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 2));
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 3));
  const auto j = m.stop(std::make_pair(t0 + 0.5, t0 + 2.0))["monitor"]["cpu_throttle"];
  EXPECT_NEAR(j["window_share"].get<double>(), (0.5 * 0.5 + 1.0 * 0) / 1.5, 1e-9) << j;
  EXPECT_NEAR(j["share"]["max"].get<double>(), 0.5, 1e-9);
  o.cpus = {0, 2};
  test::expect_unread(o, "cpu_throttle", "cpu throttle: ");
}

// On the fake NVML, GPU 1 reports hw_thermal_slowdown while
// FAKE_NVML_SLOWDOWN=1: each sample speaks for the interval it ends, and
// sw_power_cap alone is not a slowdown.
TEST(GpuSlowdown, MonitorRecordsTheWindowsSlowedShareAndItsReasons) {
  FakeClock clock;
  Monitor m(test::fake_monitor_options(clock, true));
  const double t0 = clock.now();
  ::unsetenv("FAKE_NVML_SLOWDOWN");
  m.start();
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 2));  // [t0, t0+1]: power cap only
  ::setenv("FAKE_NVML_SLOWDOWN", "1", 1);
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 3));  // [t0+1, t0+2]: slowed
  ::unsetenv("FAKE_NVML_SLOWDOWN");
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 4));  // [t0+2, t0+3]: not
  const auto g = m.stop(std::make_pair(t0 + 0.5, t0 + 2.5))["gpu_monitor"];
  EXPECT_NEAR(g["1"]["slowdown"]["window_share"].get<double>(), 0.5, 1e-9) << g;
  EXPECT_EQ(g["1"]["slowdown"]["reasons"], nlohmann::json::array({"hw_thermal_slowdown"}));
  EXPECT_NEAR(g["0"]["slowdown"]["window_share"].get<double>(), 0.0, 1e-9);
  EXPECT_EQ(g["0"]["slowdown"]["reasons"], nlohmann::json::array());
}

// A run is contended over 10% of its window stalled on memory while it read
// its own pages back from disk (at the system scope a neighbour's stalls
// count too), or, for a CUDA run, with a GPU slowed over 10% of it; every
// sign is named.
TEST(GpuSlowdown, StallsAndSlowdownsOverTheThresholdMakeARunContended) {
  auto record = [](bool cuda, double stall, double slowed, double faults = 50) {
    nlohmann::json doc = cuda_record(cuda);
    doc["monitor"] = {
        {"memory_stall", {{"scope", "system"}, {"window_share", stall}, {"window_major_faults_per_s", faults}}}};
    doc["gpu_monitor"] = {{"0", {{"slowdown", {{"reasons", {"hw_slowdown"}}, {"window_share", 0.02}}}}},
                          {"1", {{"slowdown", {{"reasons", {"hw_slowdown"}}, {"window_share", slowed}}}}}};
    return parse_result_record(doc).value();
  };
  EXPECT_FALSE(record(true, 0.05, 0.05).contended());
  EXPECT_DOUBLE_EQ(record(true, 0.05, 0.3).gpu_slowdown_share.value(), 0.3);  // the most slowed GPU
  EXPECT_EQ(contention_text(record(true, 0.05, 0.3)),
            "its GPU ran slowed down (heat or power brake) 30% of the time during its summary window");
  EXPECT_EQ(contention_text(record(false, 0.25, 0.3)),  // a CPU run does not use the GPUs it sees
            "it read 50 pages/s back from disk while memory stalls took 25% of the time during its summary window");
  EXPECT_FALSE(record(false, 0.25, 0, 0.5).contended());  // a neighbour's stalls: the run read nothing back
  EXPECT_FALSE(record(false, 0.05, 0.3).gpu_slowdown_share.has_value());
  EXPECT_FALSE(record(true, 1.5, 0).memory_stall_share.has_value());  // not a share
  nlohmann::json all = cuda_record(true);
  all["monitor"] = {{"memory_stall", {{"window_share", 0.5}, {"window_major_faults_per_s", 3}}},
                    {"cpu_throttle", {{"window_share", 0.15}}},
                    {"foreign_cpu", {{"cpus", 2}, {"usable_cpus", 2}, {"window_share", 0.4}}}};
  all["gpu_monitor"] = {{"0", {{"slowdown", {{"window_share", 0.2}}}, {"compute_processes", {{"window_max", 2}}}}}};
  const auto r = parse_result_record(all).value();
  EXPECT_EQ(
      contention_text(r),
      "other processes used 40% of its CPUs, it read 3 pages/s back from disk while memory stalls took 50% of "
      "the time, its CPUs ran throttled for heat 15% of the time, its GPU ran slowed down (heat or power brake) 20% "
      "of the time and 1 other process held its GPU during its summary window");
  EXPECT_EQ(contention_readings(r),
            nlohmann::json::parse(R"({"cpu_share": 0.4, "sibling_cpu_share": null, "memory_stall_share": 0.5,
            "major_faults_per_s": 3, "cpu_throttle_share": 0.15, "gpu_slowdown_share": 0.2,
            "other_gpu_processes": 1, "stopped_share": null})"));
}
