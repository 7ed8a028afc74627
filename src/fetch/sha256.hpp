// SHA-256 of byte streams and files (OpenSSL EVP), as lowercase hex.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

namespace milabench::fetch {

// Incremental SHA-256. Not copyable. Throws std::runtime_error only when
// OpenSSL itself fails (out of memory), never on input.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, std::size_t n);
  // 64 lowercase hex digits; the object must not be updated afterwards.
  std::string hex_digest();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::string sha256_hex(const std::string& bytes);

// Hash of the whole file at `path`. Throws std::runtime_error naming the
// path when it cannot be opened or read.
std::string sha256_file(const std::string& path);

// True for exactly 64 lowercase hex digits.
bool is_sha256_hex(const std::string& s);

}  // namespace milabench::fetch
