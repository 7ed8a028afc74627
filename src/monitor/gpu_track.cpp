#include "monitor/gpu_track.hpp"

#include <algorithm>

namespace milabench {

using json = nlohmann::json;

namespace {

// "compute_processes" of a GPU: the most processes with a CUDA context seen
// at any sample and in the window (the first sample after it when none fell
// inside); null when NVML never answered.
json processes_json(const std::vector<std::pair<double, int>>& samples,
                    const std::optional<std::pair<double, double>>& window) {
  if (samples.empty()) return nullptr;
  int most = 0;
  std::optional<int> in_window, after;
  for (const auto& [t, n] : samples) {
    most = std::max(most, n);
    if (!window) continue;
    if (t >= window->first && t <= window->second) in_window = std::max(in_window.value_or(0), n);
    if (t > window->second && !after) after = n;
  }
  if (!in_window) in_window = after;
  return {{"max", most}, {"window_max", in_window ? json(*in_window) : json(nullptr)}};
}

}  // namespace

void GpuTrack::add(const GpuSample& x, double now, double dt) {
  load_.add(x.load);
  memory_.add(x.memory_used_mb);
  temperature_.add(x.temperature_c);
  power_.add(x.power_w);
  clock_.add(x.sm_clock_mhz);
  if (x.power_w && dt > 0) power_integral_j_ += *x.power_w * dt;
  if (x.energy_j) {
    if (!energy_first_) energy_first_ = x.energy_j;
    energy_last_ = x.energy_j;
  }
  if (x.throttle_reasons) {
    const uint64_t slowed = *x.throttle_reasons & kNvmlSlowdownReasons;
    throttle_mask_ |= *x.throttle_reasons;
    slowdown_mask_ |= slowed;
    if (throttle_prev_t_) slowdown_.add_interval(*throttle_prev_t_, now, slowed ? 1.0 : 0.0);
    throttle_prev_t_ = now;
  }
  if (x.compute_processes) processes_.emplace_back(now, *x.compute_processes);
}

std::optional<double> GpuTrack::energy_j() const {
  if (energy_first_ && energy_last_) return *energy_last_ - *energy_first_;
  if (power_.n > 0) return power_integral_j_;
  return std::nullopt;
}

json GpuTrack::to_json(const std::optional<std::pair<double, double>>& window) const {
  json slowdown = nullptr;
  if (throttle_prev_t_) {
    slowdown = {{"reasons", throttle_reason_names(slowdown_mask_)}};
    slowdown.update(slowdown_.to_json(window));
  }
  const auto e = energy_j();
  return {{"name", name},
          {"load", load_.to_json()},
          {"memory", memory_.to_json()},
          {"temperature", temperature_.to_json()},
          {"power_w", power_.to_json()},
          {"sm_clock_mhz", clock_.to_json()},
          {"energy_j", e ? json(*e) : json(nullptr)},
          {"throttle_reasons", throttle_reason_names(throttle_mask_)},
          {"compute_processes", processes_json(processes_, window)},
          {"slowdown", slowdown}};
}

}  // namespace milabench
