// The results store (src/store): schema and migrations, idempotent import,
// bound parameters, and the suite's recorder that warns once and never stops
// the suite.
#include <gtest/gtest.h>

#include <sstream>

#include "scratch_dir.hpp"
#include "store/recorder.hpp"
#include "store/result_store.hpp"
#include "store/schema.hpp"
#include "store/sqlite_connection.hpp"
#include "store/store_spec.hpp"
#include "store_engines.hpp"
#include "store_files.hpp"

using namespace milabench;
using namespace milabench::store;

class StoreSchema : public test::StoreEngine {};
class StoreImport : public test::StoreEngine {};
class StoreRecorder : public test::StoreEngine {};
INSTANTIATE_STORE_ENGINES(StoreSchema);
INSTANTIATE_STORE_ENGINES(StoreImport);
INSTANTIATE_STORE_ENGINES(StoreRecorder);

namespace {

int count_lines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (std::size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_P(StoreSchema, NewStoreHasTheCurrentVersion) {
  auto s = open_store(fresh_store("new"));
  EXPECT_EQ(store_schema_version(s->connection()), kStoreSchemaVersion);
}

TEST_P(StoreSchema, OlderStoreIsMigratedKeepingItsRuns) {
  const std::string db = fresh_store("old");
  {
    auto c = open_connection(db);
    ensure_schema(*c, 1);  // a store written by a milarun of schema 1
    c->exec("INSERT INTO suite_runs (suite_key, machine, outdir) VALUES ('m:/r', 'm', '/r')");
    c->exec(
        "INSERT INTO runs (suite_run_id, run_key, file, test, counted, arguments, success, recorded_at, doc) VALUES "
        "(1, 'm/f.json', 'f.json', 'cpu.vae', 1, '[\"--batch-size\",\"8\"]', 1, 'now', '{\"name\":\"cpu.vae\"}')");
  }
  auto s = open_store(db);
  EXPECT_EQ(store_schema_version(s->connection()), 2);
  const auto rows = s->connection().query("SELECT config FROM runs");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at(0).value_or(""), "[\"--batch-size\",\"8\"]");
}

TEST_P(StoreSchema, NewerStoreIsRefusedWithOneLineNamingIt) {
  const std::string db = fresh_store("newer");
  {
    auto s = open_store(db);
    s->connection().exec("UPDATE schema_version SET version = ?", {std::int64_t{kStoreSchemaVersion + 1}});
  }
  try {
    open_store(db);
    FAIL() << "a newer schema was accepted";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.kind(), StoreError::Kind::Schema);
    EXPECT_NE(std::string(e.what()).find(pg() ? "postgresql://" : db), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("newer than this milarun's"), std::string::npos) << e.what();
  }
}

TEST_P(StoreSchema, DatabaseThatIsNotAStoreIsRefused) {
  const std::string db = fresh_store("other");
  open_connection(db)->exec("CREATE TABLE customers (name TEXT)");
  EXPECT_THROW(
      {
        try {
          open_store(db);
        } catch (const StoreError& e) {
          EXPECT_NE(std::string(e.what()).find("not a milarun results store"), std::string::npos);
          throw;
        }
      },
      StoreError);
}

TEST_P(StoreImport, ReimportAddsNothing) {
  const std::string dir = test::suite_folder("import", "cpu.vae", 100, 1700000000);
  auto s = open_store(fresh_store("import"));
  std::ostringstream warn;
  auto first = import_directory(*s, dir, warn);
  EXPECT_EQ(first.added, 6);
  auto again = import_directory(*s, dir, warn);
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.present, 6);
  EXPECT_EQ(s->run_count(), 6);
  EXPECT_EQ(s->suite_runs().size(), 1u);
  EXPECT_EQ(s->suite_runs()[0].info.machine, "labnode");
}

TEST_P(StoreImport, HostileNamesAreStoredVerbatimThroughBoundParameters) {
  const std::string name = "x'); DROP TABLE runs; -- \"q\" ?1 $1 é";
  const std::string dir = test::suite_folder("hostile", name, 50, 1700000000, 1, 1, "host'; DELETE FROM suite_runs;--");
  auto s = open_store(fresh_store("hostile"));
  std::ostringstream warn;
  EXPECT_EQ(import_directory(*s, dir, warn).added, 1);
  const auto rows =
      s->connection().query("SELECT r.test, s.machine FROM runs r JOIN suite_runs s ON s.id = r.suite_run_id");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(*rows[0][0], name);
  EXPECT_EQ(*rows[0][1], "host'; DELETE FROM suite_runs;--");
  HistoryFilter f;
  f.test = name;
  EXPECT_EQ(s->suite_runs(f).size(), 1u);
}

TEST_P(StoreImport, FileThatIsNotAResultIsSkippedWithOneWarning) {
  const std::string dir = test::suite_folder("notresult", "cpu.vae", 100, 1700000000, 1, 1);
  test::write_text(dir + "/notes.json", "{\"hello\": 1}");
  auto s = open_store(fresh_store("notresult"));
  std::ostringstream warn;
  const auto n = import_directory(*s, dir, warn);
  EXPECT_EQ(n.added, 1);
  EXPECT_EQ(n.skipped, 1);
  EXPECT_EQ(count_lines(warn.str(), "notes.json"), 1) << warn.str();
}

TEST_P(StoreRecorder, ResumedSuiteDoesNotDuplicateRuns) {
  const std::string db = fresh_store("resume");
  const std::string dir = test::suite_folder("resume", "cpu.vae", 100, 1700000000);
  std::ostringstream err;
  {
    SuiteRecorder first(db, dir, "profiles/cpu.json", err);
    first.finish();
  }
  SuiteRecorder resumed(db, dir, "profiles/cpu.json", err);  // --resume: a new process, the same folder
  resumed.record_new();
  resumed.finish();
  auto s = open_store(db);
  EXPECT_EQ(s->run_count(), 6);
  EXPECT_EQ(s->suite_runs().size(), 1u);
  EXPECT_EQ(err.str(), "");
}

TEST_P(StoreRecorder, UnreachableStoreWarnsOnceAndRecordsNothing) {
  const std::string dir = test::suite_folder("unreach", "cpu.vae", 100, 1700000000, 1, 1);
  std::ostringstream err;
  SuiteRecorder r(unreachable_store(), dir, "cpu.json", err);
  EXPECT_FALSE(r.active());
  r.record_new();
  r.record_new();
  r.finish();
  EXPECT_EQ(count_lines(err.str(), "warning: results store"), 1) << err.str();
  EXPECT_NE(err.str().find("milarun db import " + dir), std::string::npos) << err.str();
}

TEST_P(StoreRecorder, StoreOfANewerSchemaWarnsOnce) {
  const std::string db = fresh_store("recnewer");
  open_store(db)->connection().exec("UPDATE schema_version SET version = 99");
  const std::string dir = test::suite_folder("recnewer", "cpu.vae", 100, 1700000000, 1, 1);
  std::ostringstream err;
  SuiteRecorder r(db, dir, "cpu.json", err);
  r.record_new();
  r.finish();
  EXPECT_EQ(count_lines(err.str(), "warning: results store"), 1) << err.str();
  EXPECT_NE(err.str().find("schema version 99"), std::string::npos) << err.str();
}

TEST_P(StoreRecorder, StoreThatFailsMidSuiteWarnsOnceAndStops) {
  const std::string db = fresh_store("midfail");
  const std::string dir = test::suite_folder("midfail", "cpu.vae", 100, 1700000000, 1, 1);
  std::ostringstream err;
  SuiteRecorder r(db, dir, "cpu.json", err);
  ASSERT_TRUE(r.active());
  // The store becomes unusable while the suite runs (as a full disk or a
  // dropped table would make every insert fail).
  open_connection(db)->exec("DROP TABLE runs");
  r.record_new();
  r.record_new();
  r.finish();
  EXPECT_FALSE(r.active());
  EXPECT_EQ(count_lines(err.str(), "warning: results store"), 1) << err.str();
}

TEST(StoreSpec, FlagThenVariableThenOutrootThenBesideTheResults) {
  ::unsetenv("MILARUN_DB");
  ::unsetenv("MILARUN_OUTROOT");
  EXPECT_EQ(resolve_store_spec("", parent_dir("runs/first")), "runs/milarun.sqlite");
  EXPECT_EQ(resolve_store_spec("", parent_dir("first/")), "./milarun.sqlite");
  EXPECT_EQ(resolve_store_spec("", ""), "");  // jobs printing JSON on stdout: no store unless named
  ::setenv("MILARUN_OUTROOT", "/results", 1);
  EXPECT_EQ(resolve_store_spec("", "runs"), "/results/milarun.sqlite");
  ::setenv("MILARUN_DB", "postgresql://lab/db", 1);
  EXPECT_EQ(resolve_store_spec("", "runs"), "postgresql://lab/db");
  EXPECT_EQ(resolve_store_spec("mine.sqlite", "runs"), "mine.sqlite");
  ::setenv("MILARUN_DB", "none", 1);
  EXPECT_EQ(resolve_store_spec("", "runs"), "");
  EXPECT_EQ(resolve_store_spec("none", "runs"), "");
  ::unsetenv("MILARUN_DB");
  ::unsetenv("MILARUN_OUTROOT");
}
