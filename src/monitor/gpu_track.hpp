// One GPU's telemetry over a run, from NVML samples (devices/nvml.hpp):
// load, memory, temperature, power, SM clock, energy, throttle reasons, the
// time it ran slowed down for heat or a power brake, and the processes with
// a CUDA context on it. Owned and fed by the monitor's thread. Torch-free.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "devices/nvml.hpp"
#include "monitor/stat.hpp"
#include "monitor/time_share.hpp"

namespace milabench {

struct GpuTrack {
  std::string id;  // its CUDA_VISIBLE_DEVICES entry
  int index = -1;  // its NVML index
  std::string name;

  // One sample at `now` on the monitor's clock, `dt` seconds after the
  // previous one (0 for the first).
  void add(const GpuSample& x, double now, double dt);

  // Joules over the run: the driver's counter difference, else the power
  // samples' Σ power·dt; nullopt when neither was read.
  std::optional<double> energy_j() const;

  // gpu_monitor.<id> (docs/result-format.md); `window` is the summary
  // window on the monitor's clock.
  nlohmann::json to_json(const std::optional<std::pair<double, double>>& window) const;

 private:
  Stat load_, memory_, temperature_, power_, clock_;
  std::optional<double> energy_first_, energy_last_;  // driver counter, J
  double power_integral_j_ = 0.0;                     // Σ power·dt, when the counter is missing
  uint64_t throttle_mask_ = 0;
  TimeShare slowdown_;                             // samples with a slowdown reason (kNvmlSlowdownReasons)
  uint64_t slowdown_mask_ = 0;                     // the slowdown reasons seen
  std::optional<double> throttle_prev_t_;          // the previous sample with throttle reasons
  std::vector<std::pair<double, int>> processes_;  // (clock, processes with a CUDA context)
};

}  // namespace milabench
