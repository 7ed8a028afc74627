// Directories. Includes nothing of ours.
#pragma once
#include <string>

namespace milabench {

// mkdir -p (mode 0755, an existing folder is fine). Returns false when `path`
// is empty or is not a folder afterwards (a file in the way, no permission).
bool make_dirs(const std::string& path);

}  // namespace milabench
