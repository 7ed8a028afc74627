// Checks on untrusted input that more than one reader shares: names that
// become file-name components, text that reaches a terminal, and the size
// limits on files read from a results folder (docs/reliability.md, "Limits").
#pragma once
#include <cstdint>
#include <string>

namespace milabench {

// Size limits, checked with stat() before a file is read or parsed. A result
// of a one-hour run with telemetry is well under 1 MiB.
constexpr std::uint64_t kMaxResultFileBytes = 64ull << 20;  // one result file in a results folder
constexpr std::uint64_t kMaxInputFileBytes = 16ull << 20;   // profile, weights, baseline / summary JSON

// Numbers above this are refused as absurd wherever a rate (examples/s), a
// mean or a weight is read: no device does 10^12 examples per second.
constexpr double kMaxPlausibleRate = 1e12;
constexpr double kMaxPlausibleWeight = 1e6;

// "" when `name` is safe as a file-name component and as one argv word:
// 1 to 128 bytes of [A-Za-z0-9_.+-], not starting with '.' or '-'. Otherwise
// why not, e.g. "contains '/'" or "starts with '.'".
std::string unsafe_name_reason(const std::string& name);

// `text` with every control character (C0, DEL, C1 encoded in UTF-8) and
// every byte that is not part of well-formed UTF-8 replaced by '?', so an
// ANSI escape in a name or message never reaches the terminal raw.
std::string terminal_safe(const std::string& text);

// Throws std::runtime_error "PATH: SIZE, over the LIMIT limit for WHAT (...)"
// when the file at `path` is larger than `limit` bytes, "PATH: a directory,
// not WHAT; ..." when it is a directory; does nothing when it cannot be
// stat'ed (the reader then reports it cannot open it).
void check_file_size(const std::string& path, std::uint64_t limit, const std::string& what);

// "4.0 GiB", "300.0 MiB", "12 bytes".
std::string byte_size_text(std::uint64_t bytes);

}  // namespace milabench
