// Telemetry: the monitor thread's process, RAPL and GPU (NVML) readings.
#include "monitor/monitor.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "devices/gpu_ids.hpp"
#include "devices/nvml.hpp"
#include "monitor/host_sensors.hpp"
#include "monitor_fakes.hpp"
#include "scratch_dir.hpp"
#include "sys/fake_clock.hpp"

using namespace milabench;

namespace {

std::string tmpdir() { return milabench::test::scratch_dir("monitor_test"); }

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// A /proc/<pid> stand-in: `cpu_s` seconds of CPU time (split between utime
// and stime), resident and peak memory in MiB.
void write_proc(const std::string& dir, double cpu_s, int rss_mb, int peak_mb) {
  long ticks = static_cast<long>(cpu_s * static_cast<double>(sysconf(_SC_CLK_TCK)) + 0.5);
  put(dir + "/stat", "42 (a name) S 1 42 42 0 -1 0 0 0 0 0 " + std::to_string(ticks - ticks / 2) + " " +
                         std::to_string(ticks / 2) + " 0 0 20 0 1 0\n");
  put(dir + "/status", "Name:\ta name\nVmHWM:\t" + std::to_string(peak_mb * 1024) + " kB\nVmRSS:\t" +
                           std::to_string(rss_mb * 1024) + " kB\n");
}

using test::fake_nvml;
using test::wait_for_samples;

}  // namespace

// One sample at start, one per interval of the (fake) clock, one at stop.
// CPU utilisation is weighted by the interval it covers, so its mean times
// the duration is the CPU time the process used.
TEST(Monitor, SamplesProcessMemoryAndCpuUse) {
  auto proc = tmpdir();
  write_proc(proc, 1.0, 100, 120);
  FakeClock clock;
  MonitorOptions o;
  o.interval_s = 0.5;
  o.gpu_ids_from_env = false;
  o.proc_dir = proc;
  o.powercap_root = tmpdir() + "/none";
  o.clock = &clock;
  Monitor m(o);
  m.start();
  ASSERT_EQ(m.samples(), 1);
  write_proc(proc, 1.5, 300, 300);  // 0.5 s of CPU in 0.5 s: 100 %
  clock.advance(0.4);
  clock.settle();
  EXPECT_EQ(m.samples(), 1) << "sampled before its interval";
  clock.advance(0.1);
  ASSERT_TRUE(wait_for_samples(m, 2));
  write_proc(proc, 2.5, 200, 300);  // 1 s of CPU in 0.5 s: 200 %
  clock.advance(0.5);
  ASSERT_TRUE(wait_for_samples(m, 3));
  auto j = m.stop();
  EXPECT_EQ(j["monitor"]["samples"].get<int>(), 4);
  EXPECT_DOUBLE_EQ(j["monitor"]["duration_s"].get<double>(), 1.0);
  auto p = j["monitor"]["process"];
  EXPECT_DOUBLE_EQ(p["rss_peak_mb"].get<double>(), 300.0);
  EXPECT_DOUBLE_EQ(p["rss_mb"]["min"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(p["rss_mb"]["max"].get<double>(), 300.0);
  EXPECT_NEAR(p["cpu_percent"]["min"].get<double>(), 100.0, 1e-6);
  EXPECT_NEAR(p["cpu_percent"]["max"].get<double>(), 200.0, 1e-6);
  EXPECT_NEAR(p["cpu_percent"]["mean"].get<double>() / 100.0 * j["monitor"]["duration_s"].get<double>(), 1.5, 1e-6);
  EXPECT_TRUE(j["gpu_monitor"].empty());
  EXPECT_FALSE(j["monitor"]["power_measured"].get<bool>());
  EXPECT_TRUE(j["monitor"]["cpu_energy_j"].is_null());
  EXPECT_EQ(m.stop(), nlohmann::json::object());  // second stop: nothing more
}

// The real /proc/self: memory this process touched shows in its resident set.
TEST(HostSensors, ReadsThisProcessMemoryAndCpuTime) {
  std::vector<char> block(64 << 20);
  for (std::size_t i = 0; i < block.size(); i += 4096) block[i] = 1;
  auto r = read_process();
  ASSERT_TRUE(r);
  EXPECT_GE(r->rss_mb, 64.0);
  EXPECT_GE(r->rss_peak_mb, r->rss_mb);
  EXPECT_GE(r->cpu_time_s, 0.0);
  EXPECT_EQ(block[4096], 1);
  auto dir = tmpdir();
  put(dir + "/stat", "42 (no fields after the name)\n");
  EXPECT_FALSE(read_process(dir).has_value());
  EXPECT_FALSE(read_process(dir + "/missing").has_value());
}

TEST(Monitor, CpuPackageEnergyFromRaplCounters) {
  auto root = tmpdir();
  auto pkg = root + "/intel-rapl:0";
  ::mkdir(pkg.c_str(), 0755);
  ::mkdir((root + "/intel-rapl:0:0").c_str(), 0755);  // a core sub-domain: not a package
  put(pkg + "/name", "package-0\n");
  put(pkg + "/max_energy_range_uj", "262143328850\n");
  put(pkg + "/energy_uj", "1000000\n");
  put(root + "/intel-rapl:0:0/name", "core\n");
  put(root + "/intel-rapl:0:0/energy_uj", "5\n");
  FakeClock clock;
  MonitorOptions o;
  o.interval_s = 0.02;
  o.gpu_ids_from_env = false;
  o.powercap_root = root;
  o.clock = &clock;
  Monitor m(o);
  m.start();
  put(pkg + "/energy_uj", "3500000\n");  // +2.5 J
  clock.advance(0.02);
  ASSERT_TRUE(wait_for_samples(m, 2));
  auto j = m.stop()["monitor"];
  EXPECT_DOUBLE_EQ(j["cpu_energy_j"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(j["cpu_energy"]["package-0"].get<double>(), 2.5);
  EXPECT_EQ(j["cpu_energy"].size(), 1u);
  EXPECT_TRUE(j["power_measured"].get<bool>());
  EXPECT_NEAR(j["cpu_power_w"]["max"].get<double>(), 125.0, 1e-6);  // 2.5 J in 0.02 s
  EXPECT_NEAR(j["cpu_power_w"]["mean"].get<double>(), 125.0, 1e-6);
}

TEST(Monitor, RaplCounterWrapIsCorrected) {
  EXPECT_DOUBLE_EQ(energy_delta_j(1000000, 3000000, 0), 2.0);
  EXPECT_DOUBLE_EQ(energy_delta_j(9000000, 1000000, 10000000), 2.0);
  std::string why;
  EXPECT_TRUE(find_rapl_packages("/nonexistent/powercap", why).empty());
  EXPECT_NE(why.find("not present"), std::string::npos);
}

TEST(Nvml, MissingLibraryIsUnavailableNotAnError) {
  Nvml n("/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(n.available());
  EXPECT_NE(n.why_unavailable().find("cannot load"), std::string::npos);
  EXPECT_EQ(n.device_count(), 0);
  EXPECT_FALSE(n.info(0).has_value());
  EXPECT_FALSE(n.sample(0).load.has_value());
  MonitorOptions o;
  o.gpu_ids_from_env = false;
  o.gpu_ids = {"0"};
  o.nvml = &n;
  Monitor m(o);
  m.start();
  auto j = m.stop();
  EXPECT_TRUE(j["gpu_monitor"].empty());
  EXPECT_EQ(j["monitor"]["notes"][0].get<std::string>().rfind("gpu: cannot load", 0), 0u);
}

TEST(Nvml, BindsTheLibraryAndReadsDevices) {
  Nvml& n = fake_nvml();
  ASSERT_TRUE(n.available()) << n.why_unavailable();
  EXPECT_EQ(n.device_count(), 2);
  auto info = n.info(1);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "Fake GPU B");
  EXPECT_EQ(info->pci_bus_id, "00000000:82:00.0");
  EXPECT_EQ(n.index_of("1"), 1);
  EXPECT_EQ(n.index_of("GPU-aaaa"), 0);  // UUID prefix, as CUDA accepts
  EXPECT_EQ(n.index_of("7"), -1);
  auto s = n.sample(1);
  EXPECT_DOUBLE_EQ(s.load.value(), 0.75);
  EXPECT_DOUBLE_EQ(s.memory_used_mb.value(), 3072.0);
  EXPECT_DOUBLE_EQ(s.power_w.value(), 250.0);
  EXPECT_EQ(throttle_reason_names(0x4 | 0x40), (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
}

TEST(Monitor, GpuMonitorHasOriginalKeysPlusPowerAndEnergy) {
  FakeClock clock;
  MonitorOptions o;
  o.interval_s = 0.02;
  o.gpu_ids_from_env = false;
  o.gpu_ids = {"1"};
  o.nvml = &fake_nvml();
  o.powercap_root = "/nonexistent";
  o.clock = &clock;
  Monitor m(o);
  m.start();
  for (int k = 2; k <= 4; ++k) {
    clock.advance(0.02);
    ASSERT_TRUE(wait_for_samples(m, k));
  }
  auto j = m.stop();
  ASSERT_EQ(j["gpu_monitor"].size(), 1u);
  auto g = j["gpu_monitor"]["1"];
  EXPECT_EQ(g["name"], "Fake GPU B");
  EXPECT_DOUBLE_EQ(g["load"]["mean"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(g["memory"]["max"].get<double>(), 3072.0);
  EXPECT_DOUBLE_EQ(g["temperature"]["min"].get<double>(), 61.0);
  EXPECT_DOUBLE_EQ(g["power_w"]["mean"].get<double>(), 250.0);
  EXPECT_DOUBLE_EQ(g["sm_clock_mhz"]["max"].get<double>(), 1980.0);
  EXPECT_EQ(j["monitor"]["samples"].get<int>(), 5);
  EXPECT_NEAR(g["energy_j"].get<double>(), 1.5 * 4, 1e-9);  // counter difference: 1.5 J per query
  EXPECT_EQ(g["throttle_reasons"], nlohmann::json::array({"sw_power_cap"}));
  EXPECT_EQ(g["compute_processes"], nlohmann::json::parse(R"({"max": 2, "window_max": null})"));  // no window given
  EXPECT_TRUE(j["monitor"]["power_measured"].get<bool>());
  EXPECT_DOUBLE_EQ(j["monitor"]["energy_j"].get<double>(), g["energy_j"].get<double>());
}
