// Telemetry: the monitor thread's process, RAPL and GPU (NVML) readings.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "scratch_dir.hpp"
#include "devices/gpu_ids.hpp"
#include "monitor/host_sensors.hpp"
#include "monitor/monitor.hpp"
#include "devices/nvml.hpp"

using namespace milabench;

namespace {

std::string tmpdir() { return milabench::test::scratch_dir("monitor_test"); }

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Keeps one CPU busy for `s` seconds; returns a value so it is not optimised out.
double burn(double s) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
  double x = 0;
  while (std::chrono::steady_clock::now() < end)
    for (int i = 0; i < 10000; ++i) x += i * 1e-9;
  return x;
}

Nvml& fake_nvml() {
  static Nvml n(FAKE_NVML_PATH);
  return n;
}

}  // namespace

TEST(Monitor, SamplesProcessMemoryAndCpuUse) {
  MonitorOptions o;
  o.interval_s = 0.05;
  o.gpu_ids_from_env = false;
  o.powercap_root = tmpdir() + "/none";
  Monitor m(o);
  double cpu_before = read_process()->cpu_time_s;
  m.start();
  std::vector<char> block(64 << 20);
  for (std::size_t i = 0; i < block.size(); i += 4096) block[i] = 1;
  volatile double sink = burn(0.5);
  (void)sink;
  auto j = m.stop();
  double cpu_after = read_process()->cpu_time_s;
  EXPECT_GE(j["monitor"]["samples"].get<int>(), 6);
  auto p = j["monitor"]["process"];
  EXPECT_GE(p["rss_peak_mb"].get<double>(), 64.0);
  EXPECT_LT(p["rss_peak_mb"].get<double>(), 4096.0);
  EXPECT_GT(p["rss_mb"]["max"].get<double>(), 60.0);
  // One thread spinning: never more than all CPUs, and the time-weighted
  // utilisation over the run adds up to the CPU time the process really used
  // (the slack covers the moments before the first and after the last sample
  // and the 10 ms tick of /proc; an uneven sample spacing must not matter).
  EXPECT_GT(p["cpu_percent"]["max"].get<double>(), 5.0);
  EXPECT_LT(p["cpu_percent"]["max"].get<double>(), 100.0 * std::thread::hardware_concurrency() + 30.0);
  double used = cpu_after - cpu_before;
  double estimated = p["cpu_percent"]["mean"].get<double>() / 100.0 * j["monitor"]["duration_s"].get<double>();
  EXPECT_NEAR(estimated, used, 0.1 * used + 0.05) << "cpu time used " << used;
  EXPECT_TRUE(j["gpu_monitor"].empty());
  EXPECT_FALSE(j["monitor"]["power_measured"].get<bool>());
  EXPECT_TRUE(j["monitor"]["cpu_energy_j"].is_null());
  EXPECT_EQ(m.stop(), nlohmann::json::object());  // second stop: nothing more
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
  MonitorOptions o;
  o.interval_s = 0.02;
  o.gpu_ids_from_env = false;
  o.powercap_root = root;
  Monitor m(o);
  m.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  put(pkg + "/energy_uj", "3500000\n");  // +2.5 J
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  auto j = m.stop()["monitor"];
  EXPECT_DOUBLE_EQ(j["cpu_energy_j"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(j["cpu_energy"]["package-0"].get<double>(), 2.5);
  EXPECT_EQ(j["cpu_energy"].size(), 1u);
  EXPECT_TRUE(j["power_measured"].get<bool>());
  EXPECT_GT(j["cpu_power_w"]["max"].get<double>(), 0.0);
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
  MonitorOptions o;
  o.interval_s = 0.02;
  o.gpu_ids_from_env = false;
  o.gpu_ids = {"1"};
  o.nvml = &fake_nvml();
  o.powercap_root = "/nonexistent";
  Monitor m(o);
  m.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto j = m.stop();
  ASSERT_EQ(j["gpu_monitor"].size(), 1u);
  auto g = j["gpu_monitor"]["1"];
  EXPECT_EQ(g["name"], "Fake GPU B");
  EXPECT_DOUBLE_EQ(g["load"]["mean"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(g["memory"]["max"].get<double>(), 3072.0);
  EXPECT_DOUBLE_EQ(g["temperature"]["min"].get<double>(), 61.0);
  EXPECT_DOUBLE_EQ(g["power_w"]["mean"].get<double>(), 250.0);
  EXPECT_DOUBLE_EQ(g["sm_clock_mhz"]["max"].get<double>(), 1980.0);
  int samples = j["monitor"]["samples"].get<int>();
  EXPECT_GE(samples, 3);
  EXPECT_NEAR(g["energy_j"].get<double>(), 1.5 * (samples - 1), 1e-9);  // counter difference
  EXPECT_EQ(g["throttle_reasons"], nlohmann::json::array({"sw_power_cap"}));
  EXPECT_TRUE(j["monitor"]["power_measured"].get<bool>());
  EXPECT_DOUBLE_EQ(j["monitor"]["energy_j"].get<double>(), g["energy_j"].get<double>());
}
