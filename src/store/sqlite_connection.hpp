// The results store on one SQLite file (libsqlite3): WAL journal so readers
// never block the writer, a busy timeout so two suites writing to one file
// wait for each other instead of failing.
#pragma once
#include <memory>
#include <string>

#include "store/sql_connection.hpp"

struct sqlite3;

namespace milabench::store {

// Opens (creating it when absent, unless `must_exist`) the SQLite file at
// `path`. `busy_timeout_ms`: how long a statement waits for another
// writer's lock before failing with StoreError::Kind::Busy. Throws
// StoreError (Unreachable when the file or its folder cannot be opened).
std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, bool must_exist = false,
                                           int busy_timeout_ms = 30000);

}  // namespace milabench::store
