// Shared checks of the fuzz targets' contract: a rejected input throws the
// reader's documented error, whose message is one line that names the input.
#pragma once
#include <cstdlib>
#include <string>

namespace milabench::fuzz {

// Aborts (a finding for libFuzzer, a failed replay in CTest) when `message`
// spans several lines or does not start with `source`.
inline void check_error_message(const std::string& message, const std::string& source) {
  if (message.find('\n') != std::string::npos) std::abort();
  if (message.compare(0, source.size(), source) != 0) std::abort();
}

// A property the parser promises about what it accepted.
inline void require(bool holds) {
  if (!holds) std::abort();
}

}  // namespace milabench::fuzz
