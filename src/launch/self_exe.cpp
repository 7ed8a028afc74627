#include "launch/self_exe.hpp"

#include <unistd.h>

#include <climits>

namespace milabench {

std::string self_exe_path(const std::string& fallback) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : fallback;
}

std::string sibling_exe_path(const std::string& name) {
  const std::string self = self_exe_path("");
  const auto slash = self.rfind('/');
  return (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/" + name;
}

}  // namespace milabench
