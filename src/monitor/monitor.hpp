// The telemetry thread of one run: samples once per interval, from start()
// to stop(), the visible GPUs (NVML: load, memory, temperature, power,
// energy, SM clock, throttle reasons), this process (resident memory, CPU
// utilisation) and the CPU packages' energy (RAPL) where readable.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "sys/clock.hpp"

namespace milabench {

class Nvml;

struct MonitorOptions {
  double interval_s = 1.0;                            // seconds between samples
  std::vector<std::string> gpu_ids;                   // CUDA_VISIBLE_DEVICES entries to watch
  bool gpu_ids_from_env = true;                       // ignore gpu_ids; use visible GPUs (env/NVML)
  std::string proc_dir = "/proc/self";                // process to watch
  std::string powercap_root = "/sys/class/powercap";  // RAPL
  Nvml* nvml = nullptr;                               // nullptr = Nvml::instance()
  Clock* clock = nullptr;                             // paces the samples; nullptr = steady_clock()
};

class Monitor {
 public:
  explicit Monitor(MonitorOptions o = {});
  ~Monitor();  // stops the thread if still running

  // Takes a first sample and starts the thread. Calling it twice is a no-op.
  void start();

  // Takes a last sample, joins the thread and returns
  //   {"gpu_monitor": {"<id>": {"load", "memory", "temperature", "power_w",
  //                             "sm_clock_mhz": {min, mean, max}, "energy_j",
  //                             "throttle_reasons": [...], "name"}},
  //    "monitor": {"interval_s", "samples", "duration_s", "process": {...},
  //                "cpu_energy": {...} | null, "gpu_energy_j", "cpu_energy_j",
  //                "energy_j", "power_measured", "notes": [...]}}
  // (schema and units: docs/result-format.md). Safe to call once after start.
  nlohmann::json stop();

  int samples() const;

 private:
  struct State;
  void loop();
  void take_sample();

  MonitorOptions opt_;
  std::unique_ptr<State> st_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool running_ = false;
  bool stop_requested_ = false;
};

}  // namespace milabench
