// The results store's schema (docs/history.md) and its migrations. The
// store records its version in schema_version; a store of an older version
// is migrated in one transaction when opened, a newer one (or a database
// that is not a store) is refused.
#pragma once
#include "store/sql_connection.hpp"

namespace milabench::store {

// 1: suite_runs, runs. 2: runs.config (the run's arguments as the
// configuration that history compares like with like) and its index.
constexpr int kStoreSchemaVersion = 2;

// The store's version; 0 for an empty database. Throws StoreError (Schema)
// when the database holds tables but no schema_version (not a store).
int store_schema_version(SqlConnection& c);

// Creates or migrates the schema up to `target` (kStoreSchemaVersion but for
// tests) in one write transaction. Throws StoreError (Schema) with one line
// naming the store when its version is newer than this milarun's, or when
// it is not a store.
void ensure_schema(SqlConnection& c, int target = kStoreSchemaVersion);

}  // namespace milabench::store
