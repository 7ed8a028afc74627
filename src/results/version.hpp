// milarun's version and the git commit it was built from (CMake writes both
// at configure time: build/generated/version.cpp). Recorded in every result
// ("milarun") and in the summary's inventory; printed by `milarun --version`.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace milabench {

const char* milarun_version();  // e.g. "0.9.0"
const char* milarun_commit();   // short hash, "-dirty" when the tree had changes; "unknown" outside git
// "milarun 0.9.0 (commit 1a2b3c4d5e6f)"
std::string version_line();
// {"version": ..., "commit": ...}
nlohmann::json version_record();

}  // namespace milabench
