// The results store on a PostgreSQL server (libpq), for a lab whose nodes
// all record into one database: `--db postgresql://user@host/db`. Write
// transactions take one advisory lock, so writers (and migrations) are
// serialised as on SQLite.
#pragma once
#include <memory>
#include <string>

#include "store/sql_connection.hpp"

namespace milabench::store {

// Connects to `url` (libpq connection URI; a 10 s connect timeout unless it
// names one). Throws StoreError (Unreachable when the server cannot be
// reached or refuses the login).
std::unique_ptr<SqlConnection> open_postgresql(const std::string& url);

// `url` without its password, for messages.
std::string redact_url(const std::string& url);

}  // namespace milabench::store
