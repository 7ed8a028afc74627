#include "sys/read_file.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace milabench {

std::optional<std::string> read_whole_file(const std::string& path, std::string* why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (why) *why = "missing or unreadable";
    return std::nullopt;
  }
  std::string bytes;
  try {  // libstdc++'s filebuf throws from a failed read (EISDIR, EIO) whatever the stream's mask
    // One read of the size a regular file has now (a character at a time is ~3x slower
    // on a 300 MB wmt16 file), then whatever a growing or size-0 file (/proc) still holds.
    std::error_code ec;
    const auto size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
    if (!ec && size > 0) {
      bytes.resize(size_t(size));
      in.read(bytes.data(), std::streamsize(size));
      bytes.resize(size_t(in.gcount()));
      in.clear(in.rdstate() & std::ios::badbit);
    }
    bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    in.setstate(std::ios::badbit);
  }
  if (in.bad()) {
    if (why) *why = "read error";
    return std::nullopt;
  }
  return bytes;
}

}  // namespace milabench
