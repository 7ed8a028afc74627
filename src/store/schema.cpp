#include "store/schema.hpp"

#include <algorithm>
#include <string>

namespace milabench::store {

namespace {

// Migration to version v (from v - 1). One statement per string.
std::vector<std::string> migration(SqlConnection& c, int v) {
  const std::string key = c.serial_key();
  if (v == 1)
    return {"CREATE TABLE suite_runs (id " + key +
                ", suite_key TEXT NOT NULL UNIQUE, machine TEXT NOT NULL, outdir TEXT NOT NULL, suite TEXT, "
                "profile TEXT, milarun_version TEXT, milarun_commit TEXT, inventory TEXT, started_at TEXT, "
                "ended_at TEXT)",
            "CREATE TABLE runs (id " + key +
                ", suite_run_id BIGINT NOT NULL REFERENCES suite_runs(id), run_key TEXT NOT NULL UNIQUE, file TEXT NOT "
                "NULL, test TEXT NOT NULL, counted INTEGER NOT NULL, "
                "job_id TEXT, device TEXT, arguments TEXT NOT NULL, success INTEGER NOT NULL, failure_kind TEXT, "
                "perf DOUBLE PRECISION, rates TEXT, telemetry TEXT, shortcuts TEXT, synthetic_data INTEGER, "
                "finished_at TEXT, recorded_at TEXT NOT NULL, doc TEXT NOT NULL)",
            "CREATE INDEX runs_by_suite ON runs (suite_run_id)"};
  if (v == 2)
    return {"ALTER TABLE runs ADD COLUMN config TEXT", "UPDATE runs SET config = arguments",
            "CREATE INDEX runs_by_test_config ON runs (test, config)"};
  return {};
}

}  // namespace

int store_schema_version(SqlConnection& c) {
  const auto tables = c.table_names();
  if (tables.empty()) return 0;
  if (std::find(tables.begin(), tables.end(), "schema_version") == tables.end())
    throw StoreError(StoreError::Kind::Schema,
                     c.where() +
                         ": not a milarun results store (it has tables but no schema_version); pass "
                         "another --db");
  const auto rows = c.query("SELECT version FROM schema_version");
  if (rows.size() != 1 || !rows[0].at(0))
    throw StoreError(StoreError::Kind::Schema,
                     c.where() + ": its schema_version table does not hold one version; pass another --db");
  return std::stoi(*rows[0][0]);
}

void ensure_schema(SqlConnection& c, int target) {
  auto refuse_newer = [&](int have) {
    if (have > kStoreSchemaVersion)
      throw StoreError(StoreError::Kind::Schema, c.where() + ": results store of schema version " +
                                                     std::to_string(have) + ", newer than this milarun's " +
                                                     std::to_string(kStoreSchemaVersion) +
                                                     "; use a newer milarun, or another --db");
  };
  int have = store_schema_version(c);  // outside the lock: the common case (up to date) takes no write lock
  refuse_newer(have);
  if (have >= target) return;
  WriteTransaction tx(c);
  have = store_schema_version(c);  // another process may have migrated it meanwhile
  refuse_newer(have);
  if (have == 0) c.exec("CREATE TABLE schema_version (version INTEGER NOT NULL)");
  for (int v = have + 1; v <= target; ++v)
    for (const auto& sql : migration(c, v)) c.exec(sql);
  if (have == 0)
    c.exec("INSERT INTO schema_version (version) VALUES (?)", {std::int64_t{target}});
  else
    c.exec("UPDATE schema_version SET version = ?", {std::int64_t{target}});
  tx.commit();
}

}  // namespace milabench::store
