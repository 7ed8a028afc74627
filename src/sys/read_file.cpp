#include "sys/read_file.hpp"

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
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
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
