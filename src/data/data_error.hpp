// The error a dataset reader throws for missing, truncated or malformed data
// (no torch). Its message names the file and, where the data can be made,
// the `milarun dataset ...` command; `milarun run` records it as
// failure_kind "bad_input".
#pragma once
#include <stdexcept>
#include <string>

namespace milabench {

struct DataError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace milabench
