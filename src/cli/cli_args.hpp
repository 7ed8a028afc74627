// Command-line handling shared by milarun and milarun-torch.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace milabench {

// argv[1..] split at the first "--": what is before is ours (parsed by
// CLI11), what is after belongs to the workloads, untouched.
struct SplitArgs {
  std::vector<std::string> own, rest;
};

inline SplitArgs split_at_double_dash(int argc, char** argv) {
  SplitArgs s;
  bool split = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!split && a == "--") {
      split = true;
      continue;
    }
    (split ? s.rest : s.own).push_back(a);
  }
  return s;
}

// Parses `own` into `app`. Returns -1 when parsing succeeded, else the exit
// code (help printed: 0; a bad flag: its one-line error, non-zero).
inline int parse_own(CLI::App& app, const std::vector<std::string>& own) {
  std::vector<std::string> rev(own.rbegin(), own.rend());  // CLI11 consumes a reversed vector
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return -1;
}

}  // namespace milabench
