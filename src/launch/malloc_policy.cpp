#include "launch/malloc_policy.hpp"

#include <malloc.h>

#include <cstring>

namespace milabench {

std::optional<MallocPolicy> choose_malloc_policy(const char* milarun_malloc, const char* glibc_tunables,
                                                 std::string* error) {
  const std::string wanted = milarun_malloc && *milarun_malloc ? milarun_malloc : "heap";
  if (wanted != "heap" && wanted != "system") {
    *error = "MILARUN_MALLOC=" + wanted + " is not a malloc policy: use heap (the default) or system";
    return std::nullopt;
  }
  if (glibc_tunables && std::strstr(glibc_tunables, "glibc.malloc.") != nullptr)
    return MallocPolicy{"tunables", std::string("GLIBC_TUNABLES=") + glibc_tunables};
  if (wanted == "system") return MallocPolicy{"system", "glibc defaults"};
  return MallocPolicy{"heap", "M_MMAP_MAX=0 M_TRIM_THRESHOLD=-1"};
}

bool apply_malloc_policy(const MallocPolicy& policy, std::string* error) {
  if (policy.name != "heap") return true;
  // mallopt returns 1 on success, 0 on error.
  if (mallopt(M_MMAP_MAX, 0) != 1) {
    *error = "mallopt(M_MMAP_MAX, 0) was refused";
    return false;
  }
  if (mallopt(M_TRIM_THRESHOLD, -1) != 1) {
    mallopt(M_MMAP_MAX, 65536);  // glibc's default: one setting alone is worse than none
    *error = "mallopt(M_TRIM_THRESHOLD, -1) was refused";
    return false;
  }
  return true;
}

nlohmann::json malloc_record(const MallocPolicy& policy) {
  return {{"policy", policy.name}, {"settings", policy.settings}};
}

}  // namespace milabench
