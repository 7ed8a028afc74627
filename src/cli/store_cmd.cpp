#include "cli/store_cmd.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <ostream>
#include <regex>

#include "report/html.hpp"
#include "results/atomic_write.hpp"
#include "results/input_checks.hpp"
#include "store/history.hpp"
#include "store/recorder.hpp"
#include "store/schema.hpp"
#include "store/store_spec.hpp"

namespace milabench {

namespace {

const char* kDbHelp =
    "results store: a SQLite file or postgresql://... (default $MILARUN_DB, else $MILARUN_OUTROOT/milarun.sqlite, "
    "else ./milarun.sqlite)";

int info(store::ResultStore& s, std::ostream& out) {
  const auto suites = s.suite_runs();
  out << fmt::format("store: {} ({})\nschema version: {}\nsuite runs: {}\nruns: {}\n", s.connection().where(),
                     s.connection().engine(), store::store_schema_version(s.connection()), suites.size(),
                     s.run_count());
  if (!suites.empty())
    out << terminal_safe(fmt::format("newest: #{} {} on {} ({})\n", suites.back().id, suites.back().info.started_at,
                                     suites.back().info.machine, suites.back().info.outdir));
  return 0;
}

}  // namespace

StoreCommands add_store_commands(CLI::App& app, StoreCmdOptions& o) {
  StoreCommands c;
  c.db = app.add_subcommand("db", "the results store: import results folders, show what it holds");
  c.db->require_subcommand(1);
  c.import = c.db->add_subcommand("import", "record results folders in the store (idempotent)");
  c.import->add_option("dirs", o.dirs, "results folders")->required();
  c.info = c.db->add_subcommand("info", "the store's schema version and what it holds");
  for (CLI::App* sub : {c.import, c.info}) sub->add_option("--db", o.db, kDbHelp);
  c.history = app.add_subcommand("history",
                                 "suite runs and per-test perf over time from the store; regressions (exit 1 when the "
                                 "newest run of a test is one)");
  c.history->add_option("--db", o.db, kDbHelp);
  c.history->add_option("--test", o.test, "only this test (e.g. cpu.vae)");
  c.history->add_option("--machine", o.machine, "only this machine (host name)");
  c.history->add_option("--since", o.since, "only suite runs started at or after this UTC date (YYYY-mm-dd)");
  c.history->add_option("--previous", o.previous, "each suite run is checked against this many before it")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  c.history->add_option("--html", o.html, "write the trend charts here (self-contained HTML)");
  return c;
}

int run_store_command(const StoreCommands& c, const StoreCmdOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.since.empty() && !std::regex_match(o.since, std::regex(R"(\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?)"))) {
    err << "error: --since " << terminal_safe(o.since)
        << ": expected a UTC date YYYY-mm-dd (or \"YYYY-mm-dd HH:MM\")\n";
    return 2;
  }
  const std::string spec = store::resolve_store_spec(o.db, ".");
  if (spec.empty()) {
    err << "error: --db none (or MILARUN_DB=none): this command needs a store; pass --db PATH\n";
    return 2;
  }
  const bool reading = !*c.import;
  std::unique_ptr<store::ResultStore> s;
  try {
    s = store::open_store(spec, /*must_exist=*/reading);
  } catch (const std::exception& e) {
    err << terminal_safe(std::string("error: results store ") + e.what()) << "\n";
    return 2;
  }
  try {
    if (*c.import) {
      for (const auto& dir : o.dirs) {
        const auto n = store::import_directory(*s, dir, err);
        out << terminal_safe(fmt::format("{}: {} run(s) added, {} already in the store, {} skipped\n", dir, n.added,
                                         n.present, n.skipped));
      }
      return 0;
    }
    if (*c.info) return info(*s, out);
    const store::HistoryFilter f{o.test, o.machine, o.since};
    const int regressions = store::print_history(*s, f, o.previous, out);
    if (!o.html.empty()) write_text_atomic(o.html, history_html(store::test_trends(*s, f, o.previous)));
    return regressions > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    err << terminal_safe(std::string("error: ") + e.what()) << "\n";
    return 2;
  }
}

}  // namespace milabench
