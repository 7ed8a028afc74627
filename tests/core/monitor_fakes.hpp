// What the monitor's tests share: the fake NVML, options that read only
// what a test gives them on a fake clock, and a wait for the sampling thread.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

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
