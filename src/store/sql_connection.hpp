// A connection to the results store's database, whatever the engine: SQLite
// (sqlite_connection.hpp) or PostgreSQL (pg_connection.hpp). Statements are
// written with `?` placeholders and every value goes through a bound
// parameter, never into the SQL text.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace milabench::store {

using SqlParam = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
using SqlParams = std::vector<SqlParam>;
// One result row; a NULL column is nullopt, every other value its text.
using SqlRow = std::vector<std::optional<std::string>>;

// Why the store cannot do what was asked. The suite warns once for any of
// them and goes on writing JSON; the store's own commands exit 2 with what().
class StoreError : public std::runtime_error {
 public:
  enum class Kind {
    Unreachable,  // cannot open or connect (missing folder, refused, permission)
    Busy,         // locked by another writer past the busy timeout
    Full,         // the disk or quota is full
    Schema,       // a schema this milarun cannot use (newer, or not a store)
    Other,        // any other engine error
  };
  StoreError(Kind k, const std::string& what) : std::runtime_error(what), kind_(k) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // "sqlite" or "postgresql".
  virtual const char* engine() const = 0;
  // What the connection was opened on, for messages (a PostgreSQL URL
  // without its password).
  virtual std::string where() const = 0;
  // Runs one statement (no result rows expected). Throws StoreError.
  virtual void exec(const std::string& sql, const SqlParams& params = {}) = 0;
  // Runs one statement and returns its rows. Throws StoreError.
  virtual std::vector<SqlRow> query(const std::string& sql, const SqlParams& params = {}) = 0;
  // A write transaction that takes the write lock at once (SQLite: BEGIN
  // IMMEDIATE, so two writers never deadlock upgrading a read lock).
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // DDL for an auto-numbered primary key column: "INTEGER PRIMARY KEY" or
  // "BIGSERIAL PRIMARY KEY".
  virtual const char* serial_key() const = 0;
  // The names of the tables of the store's schema (SQLite: the file's;
  // PostgreSQL: the connection's current schema).
  virtual std::vector<std::string> table_names() = 0;
};

// Rolls back unless commit() was called.
class WriteTransaction {
 public:
  explicit WriteTransaction(SqlConnection& c) : c_(c) { c_.begin_write(); }
  ~WriteTransaction() {
    if (!done_) c_.rollback();
  }
  void commit() {
    c_.commit();
    done_ = true;
  }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;

 private:
  SqlConnection& c_;
  bool done_ = false;
};

}  // namespace milabench::store
