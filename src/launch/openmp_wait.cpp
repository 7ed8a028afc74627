#include "launch/openmp_wait.hpp"

#include <cstdlib>

namespace milabench {

bool set_default_openmp_spin() {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return false;
  return ::setenv("GOMP_SPINCOUNT", kOpenmpSpinCount, 1) == 0;
}

}  // namespace milabench
