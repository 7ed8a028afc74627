// What the monitor's tests share: the fake NVML, options that read only
// what a test gives them on a fake clock, and a wait for the sampling thread.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "devices/nvml.hpp"
#include "monitor/monitor.hpp"
#include "sys/fake_clock.hpp"

namespace milabench::test {

// tests/fake_nvml: two GPUs with known readings (its header says which).
inline Nvml& fake_nvml() {
  static Nvml n(FAKE_NVML_PATH);
  return n;
}

// A 1 s interval on `clock`, no RAPL, and no GPUs, or with `fake_gpus`
// the fake NVML's GPUs "1" and "0".
inline MonitorOptions fake_monitor_options(FakeClock& clock, bool fake_gpus = false) {
  MonitorOptions o;
  if (fake_gpus) {
    o.gpu_ids = {"1", "0"};
    o.nvml = &fake_nvml();
  }
  o.interval_s = 1.0;
  o.gpu_ids_from_env = false;
  o.powercap_root = "/nonexistent";
  o.clock = &clock;
  return o;
}

// A /proc/stat whose cpuN has busy_s[N] busy seconds (split over user,
// system and steal) and 1000 s idle; the first line is the total.
inline std::string proc_stat_text(const std::vector<double>& busy_s) {
  static const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  std::string out = "cpu  1 2 3 4 5 6 7 8 0 0\n";
  for (std::size_t cpu = 0; cpu < busy_s.size(); ++cpu) {
    const long t = static_cast<long>(busy_s[cpu] * tick + 0.5);
    out += "cpu" + std::to_string(cpu) + " " + std::to_string(t - t / 2 - t / 4) + " 0 " + std::to_string(t / 2) +
           " 100000 7 0 0 " + std::to_string(t / 4) + " 0 0\n";
  }
  return out + "intr 12345\nctxt 99\n";
}

// Waits until the monitor has taken `n` samples (60 s cap, reached only by a broken test).
inline bool wait_for_samples(const Monitor& m, int n) {
  for (int i = 0; i < 60000 && m.samples() < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return m.samples() == n;
}

// A monitor on `o` that cannot read a source records monitor.`key` as null
// and a note that starts with `note`.
inline void expect_unread(const MonitorOptions& o, const char* key, const char* note) {
  Monitor m(o);
  m.start();
  const auto j = m.stop(std::make_pair(0.0, 1.0))["monitor"];
  EXPECT_TRUE(j[key].is_null()) << j[key];
  EXPECT_NE(j["notes"].dump().find(note), std::string::npos) << j["notes"];
}

}  // namespace milabench::test
