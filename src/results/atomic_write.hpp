// Atomic file writes: a temporary file in the same folder, fsync, rename. A
// killed writer never leaves half a file; a reader sees the old or the new one.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace milabench {

// Writes `text` (binary safe) to `path`. Throws std::runtime_error naming the
// path and the system's reason when it cannot.
void write_text_atomic(const std::string& path, const std::string& text);
// An output file a user names (report --html/--csv/--markdown, summary -o):
// a symbolic link is followed and its target written (the link stays); a
// FIFO, character device or socket (/dev/stdout, a pipe) is opened and
// written in place, never replaced; a regular file or a new name is written
// with write_text_atomic. Throws std::runtime_error naming the path (a
// directory, a link loop, a write error).
void write_output_file(const std::string& path, const std::string& text);
// Same for a JSON document (2-space indent, invalid UTF-8 replaced).
void write_json_atomic(const std::string& path, const nlohmann::json& doc);

}  // namespace milabench
