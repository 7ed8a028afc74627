// `milarun db import DIR...`, `milarun db info` and `milarun history`: the
// results store from the command line (src/store, docs/history.md).
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace milabench {

struct StoreCmdOptions {
  std::string db;                    // --db (store_spec.hpp); "" = the default
  std::vector<std::string> dirs;     // db import
  std::string test, machine, since;  // history filters
  int previous = 5;                  // history: runs the newest is checked against
  std::string html;                  // history: trend charts page
};

struct StoreCommands {
  CLI::App *db = nullptr, *import = nullptr, *info = nullptr, *history = nullptr;
};

StoreCommands add_store_commands(CLI::App& app, StoreCmdOptions& o);

// 0 ok; 1 history found a regression; 2 bad input or a store that cannot be used (one line on err).
int run_store_command(const StoreCommands& c, const StoreCmdOptions& o, std::ostream& out, std::ostream& err);

}  // namespace milabench
