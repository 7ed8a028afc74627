#include "monitor/stopped_time.hpp"

#include <algorithm>

namespace milabench {

namespace {

double overlap(double a0, double a1, double b0, double b1) {
  return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

}  // namespace

void StoppedTime::woke(double now) {
  if (!due_) return;
  if (now - *due_ > kMinStoppedS) stops_.emplace_back(*due_, now);
  due_.reset();
}

double StoppedTime::seconds_between(double t0, double t1, double now) const {
  double s = 0;
  for (const auto& [a, b] : stops_) s += overlap(a, b, t0, t1);
  if (due_ && now - *due_ > kMinStoppedS) s += overlap(*due_, now, t0, t1);
  return s;
}

nlohmann::json StoppedTime::to_json(const std::optional<std::pair<double, double>>& window) const {
  using json = nlohmann::json;
  double total = 0, longest = 0;
  for (const auto& [a, b] : stops_) {
    total += b - a;
    longest = std::max(longest, b - a);
  }
  json in_window = nullptr, share = nullptr;
  if (window) {
    double s = 0;
    for (const auto& [a, b] : stops_) s += overlap(a, b, window->first, window->second);
    in_window = s;
    const double length = window->second - window->first;
    share = length > 0 ? json(std::min(1.0, s / length)) : json(nullptr);
  }
  return {{"episodes", stops_.size()},
          {"total_s", total},
          {"longest_s", longest},
          {"window_s", in_window},
          {"window_share", share}};
}

}  // namespace milabench
