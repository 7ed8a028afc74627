// How long torch's OpenMP threads spin for their next parallel region before
// they sleep. libgomp's default (about 300 000 iterations) burns the slices
// that the partner threads of a busy or oversubscribed CPU need: ssd 0.76
// against 1.10 img/s beside two busy loops, wlm with 2 threads 7.5 against 14.1
// sequences/s on an idle 2-core machine (docs/performance.md, "OpenMP's
// spin-wait"). libgomp reads the variables once, when it is loaded, so milarun
// sets them before it execs milarun-torch; the result records them (environ).
#pragma once

namespace milabench {

// The spin milarun gives its runs: GOMP_SPINCOUNT iterations.
inline constexpr const char* kOpenmpSpinCount = "10000";

// Sets GOMP_SPINCOUNT=kOpenmpSpinCount in this process's environment unless
// the user chose a wait already (OMP_WAIT_POLICY or GOMP_SPINCOUNT set, even
// empty). Returns true when it set it.
bool set_default_openmp_spin();

}  // namespace milabench
