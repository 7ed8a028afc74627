#include "results/atomic_write.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "sys/atomic_file.hpp"

namespace milabench {

void write_text_atomic(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

namespace {

// `path` with every symbolic link of its last component followed (a dangling
// link gives its target's name, so the file is made there).
std::string follow_links(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    char buf[4096];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    if (n < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    std::string target(buf, static_cast<std::size_t>(n));
    const auto slash = path.rfind('/');
    if (target.empty() || target[0] != '/')
      target = (slash == std::string::npos ? "" : path.substr(0, slash + 1)) + target;
    path = target;
  }
  throw std::runtime_error(fmt::format("cannot write {}: too many levels of symbolic links", path));
}

void write_all(int fd, const std::string& text, const std::string& path) {
  for (size_t off = 0; off < text.size();) {
    ssize_t w = ::write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      const int e = errno;
      ::close(fd);
      throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(e)));
    }
    off += static_cast<size_t>(w);
  }
}

}  // namespace

void write_output_file(const std::string& path, const std::string& text) {
  const std::string real = follow_links(path);
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return write_text_atomic(real, text);
  if (S_ISDIR(st.st_mode)) throw std::runtime_error(fmt::format("cannot write {}: it is a directory", path));
  const int fd = ::open(real.c_str(), O_WRONLY | O_CLOEXEC);  // a FIFO, a device: written in place
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  write_all(fd, text, path);
  if (::close(fd) != 0) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}

void write_json_atomic(const std::string& path, const nlohmann::json& doc) {
  write_text_atomic(path, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace milabench
