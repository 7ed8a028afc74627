#include "store/result_store.hpp"

#include <ctime>
#include <stdexcept>

#include "store/pg_connection.hpp"
#include "store/run_row.hpp"
#include "store/schema.hpp"
#include "store/sqlite_connection.hpp"

namespace milabench::store {
using nlohmann::json;

namespace {

SqlParam text_or_null(const std::string& s) { return s.empty() ? SqlParam(nullptr) : SqlParam(s); }
std::string str(const std::optional<std::string>& v) { return v ? *v : ""; }
const char* kSuiteColumns =
    "s.id, s.machine, s.outdir, s.suite, s.profile, s.started_at, s.ended_at, s.milarun_version, s.milarun_commit, "
    "(SELECT COUNT(*) FROM runs r WHERE r.suite_run_id = s.id AND r.counted = 1), "
    "(SELECT COUNT(*) FROM runs r WHERE r.suite_run_id = s.id AND r.counted = 1 AND r.success = 0)";

SuiteRunRow suite_from(const SqlRow& r) {
  SuiteRunRow s;
  s.id = std::stoll(*r.at(0));
  s.info = {str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), str(r[6])};
  s.milarun_version = str(r[7]);
  s.milarun_commit = str(r[8]);
  s.runs = std::stoi(str(r[9]));
  s.failures = std::stoi(str(r[10]));
  return s;
}

}  // namespace

std::string utc_now_text() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

ResultStore::ResultStore(std::unique_ptr<SqlConnection> c) : c_(std::move(c)) { ensure_schema(*c_); }

std::int64_t ResultStore::suite_run(const SuiteRunInfo& s) {
  const std::string key = s.machine + ":" + s.outdir;
  WriteTransaction tx(*c_);
  c_->exec(
      "INSERT INTO suite_runs (suite_key, machine, outdir, suite, profile, started_at, ended_at) VALUES (?, ?, ?, ?, "
      "?, ?, ?) ON CONFLICT (suite_key) DO NOTHING",
      {key, s.machine, s.outdir, text_or_null(s.suite), text_or_null(s.profile), text_or_null(s.started_at),
       text_or_null(s.ended_at)});
  const auto rows = c_->query("SELECT id FROM suite_runs WHERE suite_key = ?", {key});
  const std::int64_t id = std::stoll(*rows.at(0).at(0));
  // An existing row keeps what it knows and learns what it did not.
  c_->exec(
      "UPDATE suite_runs SET suite = COALESCE(suite, ?), profile = COALESCE(profile, ?), started_at = "
      "COALESCE(started_at, ?) WHERE id = ?",
      {text_or_null(s.suite), text_or_null(s.profile), text_or_null(s.started_at), id});
  tx.commit();
  return id;
}

std::optional<std::int64_t> ResultStore::suite_of_run(const std::string& machine, const std::string& file) {
  const auto rows = c_->query("SELECT suite_run_id FROM runs WHERE run_key = ?", {machine + "/" + file});
  if (rows.empty()) return std::nullopt;
  return std::stoll(*rows[0].at(0));
}

bool ResultStore::record_run(std::int64_t suite_id, const std::string& machine, const std::string& file,
                             const json& doc) {
  const RunRow r = run_row(file, doc);
  const std::string key = machine + "/" + file;
  const SqlParam perf = r.perf ? SqlParam(*r.perf) : SqlParam(nullptr);
  const SqlParam synthetic = r.synthetic_data ? SqlParam(std::int64_t{*r.synthetic_data}) : SqlParam(nullptr);
  WriteTransaction tx(*c_);
  if (!c_->query("SELECT 1 FROM runs WHERE run_key = ?", {key}).empty()) return false;
  c_->exec(
      "INSERT INTO runs (suite_run_id, run_key, file, test, counted, job_id, device, arguments, config, success, "
      "failure_kind, perf, rates, telemetry, shortcuts, synthetic_data, finished_at, recorded_at, doc) VALUES (?, ?, "
      "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_key) DO NOTHING",
      {suite_id, key, file, r.test, std::int64_t{r.counted}, text_or_null(r.job_id), text_or_null(r.device),
       r.arguments, r.arguments, std::int64_t{r.success}, text_or_null(r.failure_kind), perf, r.rates, r.telemetry,
       r.shortcuts, synthetic, text_or_null(r.finished_at), utc_now_text(), doc.dump()});
  std::string version, commit;
  if (doc.contains("milarun") && doc["milarun"].is_object()) {
    version = doc["milarun"].value("version", std::string());
    commit = doc["milarun"].value("commit", std::string());
  }
  const json inv = doc.contains("inventory") && doc["inventory"].is_object() ? doc["inventory"] : json();
  c_->exec(
      "UPDATE suite_runs SET milarun_version = COALESCE(milarun_version, ?), milarun_commit = "
      "COALESCE(milarun_commit, ?), inventory = COALESCE(inventory, ?), started_at = CASE WHEN started_at IS NULL OR "
      "started_at > ? THEN ? ELSE started_at END, ended_at = CASE WHEN ended_at IS NULL OR ended_at < ? THEN ? ELSE "
      "ended_at END WHERE id = ?",
      {text_or_null(version), text_or_null(commit), inv.is_null() ? SqlParam(nullptr) : SqlParam(inv.dump()),
       text_or_null(r.finished_at), text_or_null(r.finished_at), text_or_null(r.finished_at),
       text_or_null(r.finished_at), suite_id});
  tx.commit();
  return true;
}

void ResultStore::set_ended(std::int64_t suite_id, const std::string& ended_at) {
  c_->exec("UPDATE suite_runs SET ended_at = ? WHERE id = ?", {ended_at, suite_id});
}

std::vector<SuiteRunRow> ResultStore::suite_runs(const HistoryFilter& f) {
  std::string sql = std::string("SELECT ") + kSuiteColumns + " FROM suite_runs s WHERE 1 = 1";
  SqlParams p;
  if (!f.machine.empty()) sql += " AND s.machine = ?", p.push_back(f.machine);
  if (!f.since.empty()) sql += " AND s.started_at >= ?", p.push_back(f.since);
  if (!f.test.empty())
    sql += " AND EXISTS (SELECT 1 FROM runs r WHERE r.suite_run_id = s.id AND r.test = ?)", p.push_back(f.test);
  sql += " ORDER BY s.started_at, s.id";
  std::vector<SuiteRunRow> out;
  for (const auto& row : c_->query(sql, p)) out.push_back(suite_from(row));
  return out;
}

std::optional<SuiteRunRow> ResultStore::suite_run_by_id(std::int64_t id) {
  const auto rows = c_->query(std::string("SELECT ") + kSuiteColumns + " FROM suite_runs s WHERE s.id = ?", {id});
  if (rows.empty()) return std::nullopt;
  return suite_from(rows[0]);
}

std::vector<std::pair<std::string, json>> ResultStore::run_docs(std::int64_t suite_id) {
  std::vector<std::pair<std::string, json>> out;
  for (const auto& row : c_->query("SELECT file, doc FROM runs WHERE suite_run_id = ? ORDER BY file", {suite_id}))
    out.emplace_back(*row.at(0), json::parse(*row.at(1)));
  return out;
}

std::int64_t ResultStore::run_count() { return std::stoll(*c_->query("SELECT COUNT(*) FROM runs").at(0).at(0)); }

std::unique_ptr<SqlConnection> open_connection(const std::string& spec, bool must_exist) {
  if (spec.rfind("postgresql://", 0) == 0 || spec.rfind("postgres://", 0) == 0) return open_postgresql(spec);
  return open_sqlite(spec, must_exist);
}

std::unique_ptr<ResultStore> open_store(const std::string& spec, bool must_exist) {
  return std::make_unique<ResultStore>(open_connection(spec, must_exist));
}

}  // namespace milabench::store
