// The error Session::step throws when a loss it reads is NaN or infinite;
// the run records failure_kind "nonfinite_loss" (src/run/run_errors.hpp).
#pragma once
#include <stdexcept>

namespace milabench {

struct NonFiniteLoss : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace milabench
