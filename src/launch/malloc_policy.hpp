// How the C library allocator behaves in a training process (`milarun run`).
//
// glibc serves every block over its mmap threshold (128 KiB, raised on the fly
// up to 32 MiB) with a fresh mmap and gives it back with munmap on free, and it
// trims the heap top back to the kernel past 128 KiB. A training step frees and
// re-allocates the same activation-sized blocks every iteration, so with those
// defaults every step page-faults (and zero-fills) its activations again: on
// this 2-core machine ssd spent 14 % of its CPU in page faults and wlmfp16 ran
// at 40 % of the speed it reaches with the "heap" policy (docs/performance.md).
//
// Policies (MILARUN_MALLOC):
//   heap   (default) M_MMAP_MAX=0 and M_TRIM_THRESHOLD=-1: every block comes
//          from the heap and freed memory stays in the process for the next
//          step, as a caching allocator; resident memory stays at the run's
//          peak instead of falling between steps (the peak itself is the same).
//   system glibc's defaults, untouched.
// When GLIBC_TUNABLES already sets glibc.malloc.* the user has chosen: nothing
// is changed and the record says "tunables".
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace milabench {

struct MallocPolicy {
  std::string name;      // "heap", "system" or "tunables"
  std::string settings;  // what is applied, e.g. "M_MMAP_MAX=0 M_TRIM_THRESHOLD=-1"
};

// The policy for these environment values (either may be null). An unknown
// MILARUN_MALLOC value gives nullopt and a one-line message in *error.
std::optional<MallocPolicy> choose_malloc_policy(const char* milarun_malloc, const char* glibc_tunables,
                                                 std::string* error);

// Applies the policy to this process (mallopt). Call before the first large
// allocation; blocks already mapped keep their mapping. Returns false, with the
// reason in *error, if glibc refused a setting (the process is then left with
// glibc's defaults: the caller should record the "system" policy).
bool apply_malloc_policy(const MallocPolicy& policy, std::string* error);

// {"policy": name, "settings": settings}: recorded in each result's inventory.
nlohmann::json malloc_record(const MallocPolicy& policy);

}  // namespace milabench
