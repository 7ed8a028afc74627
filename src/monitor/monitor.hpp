// The telemetry thread of one run: samples once per interval, from start()
// to stop(), the visible GPUs (NVML: load, memory, temperature, power,
// energy, SM clock, throttle reasons, the time slowed down for heat or a
// power brake), this process (resident memory, CPU utilisation), the CPU
// packages' energy (RAPL) where readable, the share of this run's CPUs that
// other processes used, how busy the hyperthreads of its cores outside its
// CPUs were, and the time its CPUs ran throttled for heat
// (monitor/cpu_share.hpp), and the time the run stalled on memory
// (monitor/memory_pressure.hpp), and when the process did not run at all
// (monitor/stopped_time.hpp).
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "monitor/stopped_time.hpp"
#include "sys/clock.hpp"
#include "sys/cpu_topology.hpp"

namespace milabench {

class Nvml;

struct MonitorOptions {
  double interval_s = 1.0;                                // seconds between samples
  std::vector<std::string> gpu_ids;                       // CUDA_VISIBLE_DEVICES entries to watch
  bool gpu_ids_from_env = true;                           // ignore gpu_ids; use visible GPUs (env/NVML)
  std::string proc_dir = "/proc/self";                    // process to watch
  std::string powercap_root = "/sys/class/powercap";      // RAPL
  std::string proc_stat = "/proc/stat";                   // per-CPU busy time
  std::string cpu_root = kCpuSysfsRoot;                   // per-CPU thermal-throttle time, thread siblings
  std::string cgroup_root = "/sys/fs/cgroup";             // the run's cgroup v2 memory.pressure, where it has one
  std::string memory_pressure = "/proc/pressure/memory";  // else the system's
  std::vector<int> cpus;                                  // the run's CPUs; empty = this process's affinity
  Nvml* nvml = nullptr;                                   // nullptr = Nvml::instance()
  Clock* clock = nullptr;                                 // paces the samples; nullptr = steady_clock()
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
  //                             "throttle_reasons": [...], "compute_processes",
  //                             "slowdown": {...} | null, "name"}},
  //    "monitor": {"interval_s", "samples", "duration_s", "process": {...},
  //                "cpu_energy": {...} | null, "gpu_energy_j", "cpu_energy_j",
  //                "energy_j", "power_measured", "foreign_cpu": {...} | null,
  //                "sibling_cpu": {...} | null, "memory_stall": {...} | null,
  //                "cpu_throttle": {...} | null, "stopped": {...},
  //                "notes": [...]}}
  // (schema and units: docs/result-format.md). `window` is the summary
  // window's [start, end] on the monitor's clock (the rate meter's slices):
  // the window_share of foreign_cpu, sibling_cpu, memory_stall, cpu_throttle and each
  // GPU's slowdown is the share of it lost that way (null without a
  // window). Safe to call once after start.
  nlohmann::json stop(std::optional<std::pair<double, double>> window = std::nullopt);

  int samples() const;

  // Seconds of [t0, t1] (this monitor's clock) the process was stopped, a
  // stop that has just ended included (StoppedTime::seconds_between); 0
  // before start(). Thread-safe and cheap: the rate meter's window rule asks
  // it once per closed slice.
  double stopped_between(double t0, double t1);

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
  std::mutex stopped_mu_;  // guards stopped_ alone: a query never waits for a sample
  StoppedTime stopped_;
};

}  // namespace milabench
