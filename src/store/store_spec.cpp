#include "store/store_spec.hpp"

#include <cstdlib>

namespace milabench::store {

namespace {
std::string env(const char* key) {
  const char* v = std::getenv(key);
  return v ? v : "";
}
}  // namespace

std::string resolve_store_spec(const std::string& flag, const std::string& fallback_dir) {
  std::string spec = flag;
  if (spec.empty()) spec = env("MILARUN_DB");
  if (spec.empty() && !env("MILARUN_OUTROOT").empty()) spec = env("MILARUN_OUTROOT") + "/milarun.sqlite";
  if (spec.empty() && !fallback_dir.empty()) spec = fallback_dir + "/milarun.sqlite";
  return spec == "none" ? "" : spec;
}

std::string parent_dir(const std::string& outdir) {
  std::string p = outdir;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const auto slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : p.substr(0, slash);
}

}  // namespace milabench::store
