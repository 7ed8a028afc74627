// Whole-file reads. Includes nothing of ours.
#pragma once
#include <optional>
#include <string>

namespace milabench {

// Every byte of `path`. nullopt when it cannot be opened (`why` = "missing or
// unreadable") or a read fails part-way (`why` = "read error"); never throws
// for I/O, so a caller names the file in its own error.
std::optional<std::string> read_whole_file(const std::string& path, std::string* why = nullptr);

}  // namespace milabench
