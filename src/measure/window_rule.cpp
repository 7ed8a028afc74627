#include "measure/window_rule.hpp"

#include <algorithm>

#include "measure/steady_state.hpp"
#include "measure/summary_window.hpp"

namespace milabench {

WindowState summary_window_state(const std::vector<double>& rates, double sample_duration) {
  SteadyOptions so;
  so.sample_duration = sample_duration;
  WindowState w = summary_window_state(static_cast<int>(rates.size()), warmup_seconds(rates, so), sample_duration);
  if (!w.too_short) {
    const WindowCheck c = check_window(rates, so);
    w.rising = c.long_enough && c.drift > so.max_drift && c.trend_p < so.trend_alpha;
  }
  return w;
}

WindowState summary_window_state(int slices, double warmup_s, double sample_duration) {
  constexpr int span = kSummaryWindowSlices + kSummaryWindowDropLast;
  WindowState w;
  w.slices = slices;
  w.window_begin = std::max(0, slices - span);
  w.too_short = slices < span;
  w.warmup_s = warmup_s;
  if (std::isfinite(warmup_s) && sample_duration > 0) {
    const int warm = static_cast<int>(std::lround(warmup_s / sample_duration));
    w.warm_in_window = std::clamp(warm - w.window_begin, 0, kSummaryWindowSlices);
  }
  return w;
}

}  // namespace milabench
