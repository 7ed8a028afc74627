// Finding result files in a results folder: every "*.json" that is not a
// dot-file (temporary files of atomic writes end in ".tmp.<pid>"), sorted.
#pragma once
#include <string>
#include <vector>

namespace milabench {

// Paths ("dir/file.json") of the JSON files in `dir`; with `recursive`, also
// in its sub-folders, as the original's report (os.walk), except folders named
// "superseded" (results `jobs --resume` replaced). Empty when `dir` cannot be read.
std::vector<std::string> json_files_in(const std::string& dir, bool recursive = false);

}  // namespace milabench
