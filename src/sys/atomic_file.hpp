// Atomic files: written under a temporary name in the same folder, flushed to
// disk (fsync), then renamed over the final name. A killed or failed writer
// never leaves half a file under the final name; a reader sees the old file
// or the whole new one. The one implementation of this in src/ (whole-file
// writes: results/atomic_write.hpp builds on it).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace milabench {

// A streaming atomic file. The constructor creates PATH.tmp.<pid> and throws
// std::runtime_error naming it and the system's reason when it cannot.
// write() appends (throws the same way: a full disk names the file).
// commit() flushes, closes and renames it to PATH (throws naming PATH). An
// AtomicFile destroyed without commit() removes its temporary file.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  void write(const char* data, std::size_t n);
  void write(std::string_view text) { write(text.data(), text.size()); }
  void commit();
  const std::string& temp_path() const { return tmp_; }

 private:
  std::string path_, tmp_;
  int fd_ = -1;
};

}  // namespace milabench
