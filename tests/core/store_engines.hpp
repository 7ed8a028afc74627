// The store tests run on both engines: "sqlite" (always: a file in a scratch
// folder) and "postgresql" (when MILABENCH_TEST_PG names a server, as
// tests/integration/store_pg_test.sh does after starting one; skipped
// otherwise). Each test gets a fresh store: a new file, or a new schema.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "scratch_dir.hpp"
#include "store/result_store.hpp"

namespace milabench::test {

inline std::string pg_base_url() {
  const char* v = std::getenv("MILABENCH_TEST_PG");
  return v ? v : "";
}

class StoreEngine : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (pg() && pg_base_url().empty())
      GTEST_SKIP() << "MILABENCH_TEST_PG is not set (tests/integration/store_pg_test.sh sets it)";
  }
  bool pg() const { return GetParam() == "postgresql"; }
  // A store nobody used yet: a SQLite path, or a PostgreSQL URL whose
  // search_path is a fresh schema.
  std::string fresh_store(const std::string& tag) const {
    if (!pg()) return scratch_dir("store_" + tag) + "/milarun.sqlite";
    const std::string schema = "t_" + tag;
    {
      auto c = store::open_connection(pg_base_url());
      c->exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      c->exec("CREATE SCHEMA " + schema);
    }
    return pg_base_url() + (pg_base_url().find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
           schema;
  }
  // A store that cannot be reached.
  std::string unreachable_store() const {
    return pg() ? "postgresql:///postgres?host=/nonexistent-socket-folder&connect_timeout=2"
                : "/nonexistent-folder/x/milarun.sqlite";
  }
};

inline std::string engine_name(const ::testing::TestParamInfo<std::string>& i) { return i.param; }

}  // namespace milabench::test

#define INSTANTIATE_STORE_ENGINES(Suite)                                                                        \
  INSTANTIATE_TEST_SUITE_P(Engines, Suite, ::testing::Values(std::string("sqlite"), std::string("postgresql")), \
                           milabench::test::engine_name)
