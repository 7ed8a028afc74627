// The error the torch-free dataset parsers (idx_format, movielens_csv,
// text_tokens) throw on malformed input: one line, "SOURCE: PROBLEM", where
// SOURCE names the input (a path, or "path:line"). The readers that own the
// files catch it to add the command that remakes the data. It is a
// DataError, so `milarun run` records it as failure_kind "bad_input".
#pragma once
#include <string>

#include "data/data_error.hpp"

namespace milabench {

class DataFormatError : public DataError {
 public:
  DataFormatError(const std::string& source, const std::string& problem)
      : DataError(source + ": " + problem), problem_(problem) {}
  // The message without the source, for readers that name the file themselves.
  const std::string& problem() const { return problem_; }

 private:
  std::string problem_;
};

}  // namespace milabench
