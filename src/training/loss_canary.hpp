// The loss canary of the 2026 workloads: a run whose first loss is not near
// ln(classes) (a broken initialisation or loss), or whose last loss is not
// below a threshold calibrated once on the tiny config (a model that does not
// learn), fails with failure_kind "bad_result" (src/run/run_errors.cpp)
// instead of reporting a speed for work that is wrong.
#pragma once
#include <cmath>
#include <stdexcept>
#include <string>

namespace milabench {

struct LossCanaryFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LossCanary {
  double expected_first = 0;            // ln(number of real classes): the loss of uniform logits
  std::string expected_what = "ln(V)";  // how the failure line names expected_first
  double first_tolerance = 0.1;
  double last_below = 0;  // the last loss must be below this (0: not checked)
  int64_t min_steps = 0;  // ... when the run made at least this many steps

  // Throws LossCanaryFailed (one line) for step 0's loss when it is not
  // finite or not within first_tolerance of expected_first.
  void check_first(double loss) const {
    if (!std::isfinite(loss) || std::fabs(loss - expected_first) > first_tolerance)
      throw LossCanaryFailed("loss canary: step 0's loss " + std::to_string(loss) + " is not within " +
                             std::to_string(first_tolerance) + " of " + expected_what + " = " +
                             std::to_string(expected_first) + " (a broken initialisation or loss)");
  }
  // Throws LossCanaryFailed for the run's last loss after `steps` steps.
  void check_last(double loss, int64_t steps) const {
    if (!std::isfinite(loss)) throw LossCanaryFailed("loss canary: the last loss is " + std::to_string(loss));
    if (last_below > 0 && steps >= min_steps && !(loss < last_below))
      throw LossCanaryFailed("loss canary: the loss after " + std::to_string(steps) + " steps is " +
                             std::to_string(loss) + ", not below " + std::to_string(last_below) +
                             " (the model does not learn)");
  }
};

}  // namespace milabench
