#include "results/input_checks.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <stdexcept>

namespace milabench {

std::string unsafe_name_reason(const std::string& name) {
  if (name.empty()) return "is empty";
  if (name.size() > 128) return fmt::format("is {} bytes long (at most 128)", name.size());
  if (name[0] == '.') return "starts with '.'";
  if (name[0] == '-') return "starts with '-'";
  for (unsigned char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '+' || c == '-';
    if (ok) continue;
    if (c < 0x20 || c == 0x7f || c >= 0x80) return fmt::format("contains the byte 0x{:02x}", c);
    return fmt::format("contains '{}'", static_cast<char>(c));
  }
  return "";
}

std::string terminal_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence is kept unless it encodes a C1 control.
    const std::size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
    bool valid = len > 0 && len <= 4 && i + len <= text.size();
    for (std::size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (!valid || (len == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f)) {
      out += '?';
      i += valid ? len : 1;
      continue;
    }
    out.append(text, i, len);
    i += len;
  }
  return out;
}

std::string byte_size_text(std::uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", bytes / double(1ull << 30));
  if (bytes >= (1ull << 20)) return fmt::format("{:.1f} MiB", bytes / double(1ull << 20));
  if (bytes >= (1ull << 10)) return fmt::format("{:.1f} KiB", bytes / double(1ull << 10));
  return fmt::format("{} bytes", bytes);
}

void check_file_size(const std::string& path, std::uint64_t limit, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))  // else read as JSON and refused "at 1:1"
    throw std::runtime_error(fmt::format("{}: a directory, not {}; pass the JSON file itself", path, what));
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size <= limit) return;
  throw std::runtime_error(fmt::format("{}: {}, over the {} limit for {} (docs/reliability.md, \"Limits\")", path,
                                       byte_size_text(size), byte_size_text(limit), what));
}

}  // namespace milabench
