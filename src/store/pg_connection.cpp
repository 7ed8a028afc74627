#include "store/pg_connection.hpp"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <cstdlib>

namespace milabench::store {

namespace {

// Advisory lock key of the store's write transactions ("mila" in ASCII).
constexpr long long kWriteLock = 0x6d696c61;

StoreError::Kind kind_of(const char* sqlstate) {
  const std::string s = sqlstate ? sqlstate : "";
  if (s.rfind("08", 0) == 0 || s.rfind("28", 0) == 0 || s == "57P01" || s == "57P03")
    return StoreError::Kind::Unreachable;
  if (s == "53100" || s == "53200" || s == "54000") return StoreError::Kind::Full;
  if (s == "40001" || s == "40P01" || s == "55P03") return StoreError::Kind::Busy;
  return StoreError::Kind::Other;
}

// `?` placeholders (outside quoted text) as $1, $2, ...
std::string numbered(const std::string& sql) {
  std::string out;
  int n = 0;
  bool quoted = false;
  for (char c : sql) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted)
      out += "$" + std::to_string(++n);
    else
      out += c;
  }
  return out;
}

class PgConnection : public SqlConnection {
 public:
  PgConnection(PGconn* c, std::string where) : c_(c), where_(std::move(where)) {}
  ~PgConnection() override { PQfinish(c_); }
  const char* engine() const override { return "postgresql"; }
  std::string where() const override { return where_; }
  const char* serial_key() const override { return "BIGSERIAL PRIMARY KEY"; }
  void exec(const std::string& sql, const SqlParams& params) override { run(sql, params, nullptr); }
  std::vector<SqlRow> query(const std::string& sql, const SqlParams& params) override {
    std::vector<SqlRow> rows;
    run(sql, params, &rows);
    return rows;
  }
  std::vector<std::string> table_names() override {
    std::vector<std::string> out;
    for (const auto& r : query("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                               "current_schema()",
                               {}))
      if (r.at(0)) out.push_back(*r[0]);
    return out;
  }
  void begin_write() override {
    exec("BEGIN", {});
    try {
      exec("SELECT pg_advisory_xact_lock(?)", {std::int64_t{kWriteLock}});
    } catch (...) {
      rollback();
      throw;
    }
  }
  void commit() override { exec("COMMIT", {}); }
  void rollback() noexcept override { PQclear(PQexec(c_, "ROLLBACK")); }

 private:
  void run(const std::string& sql, const SqlParams& params, std::vector<SqlRow>* rows) {
    std::vector<std::string> text(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (std::holds_alternative<std::nullptr_t>(params[i])) continue;
      if (auto* v = std::get_if<std::int64_t>(&params[i]))
        text[i] = std::to_string(*v);
      else if (auto* d = std::get_if<double>(&params[i]))
        text[i] = fmt::format("{:.17g}", *d);
      else
        text[i] = std::get<std::string>(params[i]);
      values[i] = text[i].c_str();
    }
    PGresult* res = PQexecParams(c_, numbered(sql).c_str(), static_cast<int>(params.size()), nullptr, values.data(),
                                 nullptr, nullptr, 0);
    const auto status = PQresultStatus(res);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const StoreError::Kind k = PQstatus(c_) == CONNECTION_BAD ? StoreError::Kind::Unreachable
                                                                : kind_of(PQresultErrorField(res, PG_DIAG_SQLSTATE));
      std::string msg = PQerrorMessage(c_);
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
      PQclear(res);
      throw StoreError(k, where_ + ": " + msg);
    }
    if (rows)
      for (int r = 0; r < PQntuples(res); ++r) {
        SqlRow row;
        for (int c = 0; c < PQnfields(res); ++c)
          row.emplace_back(PQgetisnull(res, r, c) ? std::nullopt : std::optional<std::string>(PQgetvalue(res, r, c)));
        rows->push_back(std::move(row));
      }
    PQclear(res);
  }

  PGconn* c_;
  std::string where_;
};

}  // namespace

std::string redact_url(const std::string& url) {
  const auto scheme = url.find("://");
  const auto at = url.find('@');
  if (scheme == std::string::npos || at == std::string::npos) return url;
  const auto colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon) + ":***" + url.substr(at);
}

std::unique_ptr<SqlConnection> open_postgresql(const std::string& url) {
  // The URL's own connect_timeout, when it names one, overrides this default.
  const char* keys[] = {"connect_timeout", "dbname", nullptr};
  const char* vals[] = {"10", url.c_str(), nullptr};
  PGconn* c = PQconnectdbParams(keys, vals, /*expand_dbname=*/1);
  const std::string where = redact_url(url);
  if (!c || PQstatus(c) != CONNECTION_OK) {
    std::string msg = c ? PQerrorMessage(c) : "out of memory";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    PQfinish(c);
    throw StoreError(StoreError::Kind::Unreachable, where + ": cannot connect: " + msg);
  }
  std::unique_ptr<SqlConnection> conn = std::make_unique<PgConnection>(c, where);
  conn->exec("SET client_min_messages = warning", {});
  return conn;
}

}  // namespace milabench::store
