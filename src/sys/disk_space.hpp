// Free-space query behind a small interface, so tests can simulate a full disk.
#pragma once
#include <cstdint>
#include <string>

namespace milabench {

class DiskSpace {
 public:
  virtual ~DiskSpace() = default;
  // Bytes an unprivileged writer may still use on the filesystem holding
  // `dir` (which must exist). Throws std::runtime_error naming `dir` when the
  // filesystem cannot be queried.
  virtual std::uint64_t available_bytes(const std::string& dir) = 0;
};

// statvfs(2): f_bavail * f_frsize. A process-wide singleton.
DiskSpace& system_disk_space();

// "1.5 GiB", "12.0 MiB", "512 B": for messages.
std::string human_bytes(std::uint64_t n);

}  // namespace milabench
