#include "results/atomic_write.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace milabench {

void write_text_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
  size_t off = 0;
  while (off < text.size()) {
    ssize_t w = ::write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error(fmt::format("cannot write {}: {}", tmp, std::strerror(e)));
    }
    off += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(e)));
  }
}

void write_json_atomic(const std::string& path, const nlohmann::json& doc) {
  write_text_atomic(path, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace milabench
