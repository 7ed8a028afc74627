#include "sys/disk_space.hpp"

#include <fmt/format.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace milabench {

namespace {
class StatvfsDiskSpace : public DiskSpace {
 public:
  std::uint64_t available_bytes(const std::string& dir) override {
    struct statvfs st {};
    if (statvfs(dir.c_str(), &st) != 0)
      throw std::runtime_error(fmt::format("cannot query free space of {}: {}", dir, std::strerror(errno)));
    return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
  }
};
}  // namespace

DiskSpace& system_disk_space() {
  static StatvfsDiskSpace instance;
  return instance;
}

std::string human_bytes(std::uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (n < 1024) return fmt::format("{} B", n);
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace milabench
