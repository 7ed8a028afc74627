// One reading's summary over a run, for the monitor's telemetry. Torch-free.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

namespace milabench {

// min/mean/max of a reading. A rate measured over an interval (CPU %, power) is
// added with the interval's length as weight, so mean × duration is the total
// (CPU seconds, joules) however unevenly the samples fell.
struct Stat {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double weighted_sum = 0.0, weight = 0.0;
  int n = 0;
  void add(double v, double w = 1.0) {
    if (!std::isfinite(v) || !(w > 0)) return;
    min = std::min(min, v);
    max = std::max(max, v);
    weighted_sum += v * w;
    weight += w;
    ++n;
  }
  void add(const std::optional<double>& v) {
    if (v) add(*v);
  }
  nlohmann::json to_json() const {
    using json = nlohmann::json;
    return n == 0 ? json(nullptr) : json{{"min", min}, {"mean", weighted_sum / weight}, {"max", max}};
  }
};

}  // namespace milabench
