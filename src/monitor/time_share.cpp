#include "monitor/time_share.hpp"

#include <algorithm>

namespace milabench {

void TimeShare::add_count(double t, double used_s) {
  if (last_t_ && !(t > *last_t_)) return;
  if (last_t_ && capacity_ > 0) add_interval(*last_t_, t, (used_s - *last_used_) / (capacity_ * (t - *last_t_)));
  last_t_ = t;
  last_used_ = used_s;
}

void TimeShare::add_interval(double t0, double t1, double share) {
  if (!(t1 > t0)) return;
  intervals_.push_back({t0, t1, std::clamp(share, 0.0, 1.0)});
}

std::optional<double> TimeShare::share_between(double t0, double t1) const {
  double weighted = 0, weight = 0;
  for (const auto& i : intervals_) {
    const double overlap = std::min(i.t1, t1) - std::max(i.t0, t0);
    if (overlap <= 0) continue;
    weighted += i.share * overlap;
    weight += overlap;
  }
  if (weight <= 0) return std::nullopt;
  return weighted / weight;
}

std::optional<TimeShare::Range> TimeShare::range() const {
  if (intervals_.empty()) return std::nullopt;
  Range r{1.0, 0.0, 0.0};
  double weighted = 0, weight = 0;
  for (const auto& i : intervals_) {
    r.min = std::min(r.min, i.share);
    r.max = std::max(r.max, i.share);
    weighted += i.share * (i.t1 - i.t0);
    weight += i.t1 - i.t0;
  }
  r.mean = weighted / weight;
  return r;
}

nlohmann::json TimeShare::to_json(const std::optional<std::pair<double, double>>& window) const {
  using json = nlohmann::json;
  const auto r = range();
  std::optional<double> in_window;
  if (window) in_window = share_between(window->first, window->second);
  return {{"share", r ? json{{"min", r->min}, {"mean", r->mean}, {"max", r->max}} : json(nullptr)},
          {"window_share", in_window ? json(*in_window) : json(nullptr)}};
}

}  // namespace milabench
