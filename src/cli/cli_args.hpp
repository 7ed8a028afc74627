// Command-line handling shared by milarun and milarun-torch.
#pragma once
#include <CLI/CLI.hpp>
#include <iostream>
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
// code: 0 after --help, 2 for bad usage, which is one line on stderr naming
// the flag or command (CLI11 alone adds a "Run with --help" line and its own
// codes, and says only "A subcommand is required" for a misspelt command).
inline int parse_own(CLI::App& app, const std::vector<std::string>& own) {
  const std::string prog = app.get_name();
  app.failure_message([prog](const CLI::App*, const CLI::Error& e) {
    return prog + ": " + e.what() + " (" + prog + " --help lists the commands, " + prog +
           " COMMAND --help their flags)\n";
  });
  if (!own.empty() && own[0] != "-h" && own[0] != "--help" && own[0] != "--help-all") {
    auto named = app.get_subcommands([&](CLI::App* c) { return c->check_name(own[0]); });
    if (named.empty()) {
      std::cerr << prog << ": '" << own[0] << "' is not a command (" << prog << " --help lists them)\n";
      return 2;
    }
  }
  std::vector<std::string> rev(own.rbegin(), own.rend());  // CLI11 consumes a reversed vector
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return -1;
}

}  // namespace milabench
