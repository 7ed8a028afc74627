#include "sys/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace milabench {

namespace {
std::runtime_error write_error(const std::string& path, int e) {
  return std::runtime_error("cannot write " + path + ": " + std::strerror(e));
}
}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw write_error(tmp_, errno);
}

AtomicFile::~AtomicFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

void AtomicFile::write(const char* data, std::size_t n) {
  if (fd_ < 0) throw std::logic_error("AtomicFile::write after commit: " + path_);
  for (std::size_t off = 0; off < n;) {
    const ssize_t w = ::write(fd_, data + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw write_error(tmp_, errno);
    off += static_cast<std::size_t>(w);
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw std::logic_error("AtomicFile::commit twice: " + path_);
  int e = 0;
  if (::fsync(fd_) != 0) e = errno;
  if (::close(fd_) != 0 && e == 0) e = errno;
  fd_ = -1;
  if (e == 0 && ::rename(tmp_.c_str(), path_.c_str()) != 0) e = errno;
  if (e != 0) {
    ::unlink(tmp_.c_str());
    throw write_error(path_, e);
  }
}

}  // namespace milabench
