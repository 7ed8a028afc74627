#include "results/result_scan.hpp"

#include <algorithm>
#include <filesystem>

namespace milabench {
namespace fs = std::filesystem;

std::vector<std::string> json_files_in(const std::string& dir, bool recursive) {
  std::vector<std::string> out;
  std::error_code ec;
  auto keep = [&](const fs::directory_entry& e) {
    const std::string f = e.path().filename().string();
    std::error_code fec;
    if (!f.empty() && f[0] != '.' && e.path().extension() == ".json" && e.is_regular_file(fec))
      out.push_back(e.path().string());
  };
  if (recursive) {
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      std::error_code dec;
      if (it->path().filename() == "superseded" && it->is_directory(dec)) {
        it.disable_recursion_pending();  // results `jobs --resume` replaced: kept, not counted
        continue;
      }
      keep(*it);
    }
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) keep(*it);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace milabench
