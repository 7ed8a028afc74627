#include "results/unsaved.hpp"

#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace milabench {

std::string unsaved_dir(const std::string& outdir) {
  std::string abs = outdir;
  if (abs.empty() || abs[0] != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd)) abs = std::string(cwd) + "/" + abs;
  }
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a: stable across builds
  for (unsigned char c : abs) h = (h ^ c) * 1099511628211ull;
  const char* tmp = std::getenv("TMPDIR");
  return fmt::format("{}/milarun-unsaved/{:016x}", tmp && *tmp ? tmp : "/tmp", h);
}

}  // namespace milabench
