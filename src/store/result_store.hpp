// The results store: suite runs and their runs, recorded from result
// documents (read once through results/result_record.hpp), queried by
// history and by `report --compare @ID`. docs/history.md has the schema.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/sql_connection.hpp"

namespace milabench::store {

// A suite run as `milarun jobs` (or an import) knows it.
struct SuiteRunInfo {
  std::string machine;               // host name
  std::string outdir;                // absolute results folder
  std::string suite;                 // profile's suite name (result names' prefix); "" unknown
  std::string profile;               // profile path; "" unknown (an import)
  std::string started_at, ended_at;  // "YYYY-mm-dd HH:MM:SS" UTC; "" unknown
};

// One row of suite_runs with its run counts.
struct SuiteRunRow {
  std::int64_t id = 0;
  SuiteRunInfo info;
  std::string milarun_version, milarun_commit;
  int runs = 0, failures = 0;
};

// Filters of `milarun history`; empty = any.
struct HistoryFilter {
  std::string test, machine;
  std::string since;  // "YYYY-mm-dd[ HH:MM:SS]": suite runs started at or after it
};

class ResultStore {
 public:
  // Takes an open connection; creates or migrates the schema (schema.hpp).
  explicit ResultStore(std::unique_ptr<SqlConnection> c);
  SqlConnection& connection() { return *c_; }

  // The id of the suite run of (machine, outdir), created when absent
  // (concurrent callers get the same id). Known fields fill empty ones.
  std::int64_t suite_run(const SuiteRunInfo& s);
  // The suite run already holding the run recorded as `machine`/`file`.
  std::optional<std::int64_t> suite_of_run(const std::string& machine, const std::string& file);
  // Records one result document under its file name (no folder) in its own
  // transaction; the suite run's end time, versions and inventory move
  // with it. Returns false when the run was already recorded (idempotent:
  // key machine/file). Throws StoreError.
  bool record_run(std::int64_t suite_id, const std::string& machine, const std::string& file,
                  const nlohmann::json& doc);
  void set_ended(std::int64_t suite_id, const std::string& ended_at);

  // Suite runs matching the filter (a test filter keeps those that ran it), oldest first.
  std::vector<SuiteRunRow> suite_runs(const HistoryFilter& f = {});
  std::optional<SuiteRunRow> suite_run_by_id(std::int64_t id);
  // The result documents of a suite run, in file order (labels: file names).
  std::vector<std::pair<std::string, nlohmann::json>> run_docs(std::int64_t suite_id);
  std::int64_t run_count();

 private:
  std::unique_ptr<SqlConnection> c_;
};

// Opens the store named by `spec`: a PostgreSQL URL ("postgresql://...",
// "postgres://...") or a SQLite file path (created when absent unless
// `must_exist`). Throws StoreError.
std::unique_ptr<ResultStore> open_store(const std::string& spec, bool must_exist = false);
// The connection alone, schema untouched (tests, `db info`).
std::unique_ptr<SqlConnection> open_connection(const std::string& spec, bool must_exist = false);

// "YYYY-mm-dd HH:MM:SS" in UTC for now.
std::string utc_now_text();

}  // namespace milabench::store
