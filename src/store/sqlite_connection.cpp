#include "store/sqlite_connection.hpp"

#include <sqlite3.h>

namespace milabench::store {

namespace {

StoreError::Kind kind_of(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return StoreError::Kind::Busy;
    case SQLITE_FULL:
      return StoreError::Kind::Full;
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return StoreError::Kind::Unreachable;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return StoreError::Kind::Schema;
    default:
      return StoreError::Kind::Other;
  }
}

// A prepared statement, finalized on every path.
struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

class SqliteConnection : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override { sqlite3_close_v2(db_); }
  const char* engine() const override { return "sqlite"; }
  std::string where() const override { return path_; }
  const char* serial_key() const override { return "INTEGER PRIMARY KEY"; }

  void exec(const std::string& sql, const SqlParams& params) override { run(sql, params, nullptr); }
  std::vector<SqlRow> query(const std::string& sql, const SqlParams& params) override {
    std::vector<SqlRow> rows;
    run(sql, params, &rows);
    return rows;
  }
  std::vector<std::string> table_names() override {
    std::vector<std::string> out;
    for (const auto& r : query("SELECT name FROM sqlite_master WHERE type = 'table'", {}))
      if (r.at(0)) out.push_back(*r[0]);
    return out;
  }
  void begin_write() override { exec("BEGIN IMMEDIATE", {}); }
  void commit() override { exec("COMMIT", {}); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

 private:
  [[noreturn]] void fail(int rc, const std::string& doing) const {
    throw StoreError(kind_of(rc), path_ + ": " + doing + ": " + sqlite3_errmsg(db_));
  }

  void bind(sqlite3_stmt* s, const SqlParams& params) const {
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int n = static_cast<int>(i) + 1;
      int rc = SQLITE_OK;
      if (std::holds_alternative<std::nullptr_t>(params[i]))
        rc = sqlite3_bind_null(s, n);
      else if (auto* v = std::get_if<std::int64_t>(&params[i]))
        rc = sqlite3_bind_int64(s, n, *v);
      else if (auto* d = std::get_if<double>(&params[i]))
        rc = sqlite3_bind_double(s, n, *d);
      else {
        const std::string& t = std::get<std::string>(params[i]);
        rc = sqlite3_bind_text(s, n, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
      }
      if (rc != SQLITE_OK) fail(rc, "binding a parameter");
    }
  }

  void run(const std::string& sql, const SqlParams& params, std::vector<SqlRow>* rows) {
    Stmt st;
    int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &st.s, nullptr);
    if (rc != SQLITE_OK) fail(rc, "preparing a statement");
    bind(st.s, params);
    while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
      if (!rows) continue;
      SqlRow row;
      for (int c = 0; c < sqlite3_column_count(st.s); ++c) {
        if (sqlite3_column_type(st.s, c) == SQLITE_NULL) {
          row.emplace_back(std::nullopt);
          continue;
        }
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st.s, c));
        row.emplace_back(std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(st.s, c))));
      }
      rows->push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) fail(rc, "running a statement");
  }

  sqlite3* db_;
  std::string path_;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, bool must_exist, int busy_timeout_ms) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (must_exist ? 0 : SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    throw StoreError(StoreError::Kind::Unreachable, path + ": cannot open: " + msg);
  }
  sqlite3_busy_timeout(db, busy_timeout_ms);
  std::unique_ptr<SqlConnection> conn = std::make_unique<SqliteConnection>(db, path);
  // WAL: readers do not block the writer; NORMAL sync is durable across a
  // killed process (only a power loss may lose the last commits).
  conn->query("PRAGMA journal_mode=WAL");
  conn->exec("PRAGMA synchronous=NORMAL");
  conn->exec("PRAGMA foreign_keys=ON");
  return conn;
}

}  // namespace milabench::store
