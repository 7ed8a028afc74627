// This program's own path, and the path of a program installed beside it.
#pragma once
#include <string>

namespace milabench {

// The running executable (/proc/self/exe); `fallback` when it cannot be read.
std::string self_exe_path(const std::string& fallback = "milarun");

// `name` in the folder of the running executable ("./name" when unknown).
std::string sibling_exe_path(const std::string& name);

}  // namespace milabench
