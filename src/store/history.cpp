#include "store/history.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "report/report_data.hpp"
#include "report/summary.hpp"
#include "results/input_checks.hpp"
#include "results/result_record.hpp"

namespace milabench::store {
using nlohmann::json;

namespace {

struct SuitePart {
  std::int64_t suite_id = 0;
  std::string when;
  std::vector<LabeledResult> docs;  // its counted runs that had their devices to themselves
  int contended = 0;                // its counted runs left out: contended (ResultRecord::contended)
};
using TrendKey = std::tuple<std::string, std::string, std::string, std::string>;  // test, machine, config, inputs

// What else must match for two runs to be the same work: the data
// (synthetic stand-in or real; unknown for results without a dataset
// record) and the opt-in shortcuts (less work, docs/fidelity.md).
// "" for real or unrecorded data without shortcuts.
std::string inputs_of(const std::optional<std::string>& synthetic, const std::optional<std::string>& shortcuts) {
  std::string out = synthetic.value_or("") == "1" ? "synthetic data" : "";
  const std::string cuts = shortcuts.value_or("[]");
  if (!cuts.empty() && cuts != "[]") out += (out.empty() ? "" : ", ") + std::string("opt-in shortcuts ") + cuts;
  return out;
}

bool contended(const json& doc) {
  const auto rec = parse_result_record(doc);
  return rec && rec->contended();
}

// The counted runs of the filtered suite runs, grouped by trend, each
// trend's suite runs oldest first; contended runs are counted, not kept.
std::map<TrendKey, std::vector<SuitePart>> load_parts(ResultStore& s, const HistoryFilter& f) {
  std::string sql =
      "SELECT r.test, s.machine, r.config, s.id, s.started_at, r.file, r.doc, r.synthetic_data, r.shortcuts FROM "
      "runs r JOIN suite_runs s ON s.id = r.suite_run_id WHERE r.counted = 1";
  SqlParams p;
  if (!f.test.empty()) sql += " AND r.test = ?", p.push_back(f.test);
  if (!f.machine.empty()) sql += " AND s.machine = ?", p.push_back(f.machine);
  if (!f.since.empty()) sql += " AND s.started_at >= ?", p.push_back(f.since);
  sql += " ORDER BY s.started_at, s.id, r.file";
  std::map<TrendKey, std::vector<SuitePart>> out;
  for (const auto& row : s.connection().query(sql, p)) {
    auto& parts = out[{*row.at(0), row.at(1).value_or(""), row.at(2).value_or(""), inputs_of(row.at(7), row.at(8))}];
    const std::int64_t id = std::stoll(*row.at(3));
    if (parts.empty() || parts.back().suite_id != id) parts.push_back({id, row.at(4).value_or(""), {}, 0});
    json doc = json::parse(*row.at(6));
    if (contended(doc))
      ++parts.back().contended;
    else
      parts.back().docs.push_back({*row.at(5), "store run " + *row.at(5), std::move(doc)});
  }
  return out;
}

json summary_of(const std::vector<LabeledResult>& docs) {
  std::vector<std::string> ignored;  // the suite's own report warns about its files
  return summarize_results(docs, ignored);
}

// The report row of `test` in the report of `summary` against `base` (no
// comparison when `base` is empty).
ReportRow row_of(const std::string& test, const json& summary, const std::vector<LabeledResult>& base) {
  const json baseline = base.empty() ? json() : summary_of(base);
  const ReportData d = build_report(summary, json(), baseline, 0, false, "");
  for (const auto& r : d.rows)
    if (r.name == test) return r;
  return ReportRow{};
}

// "KEY before -> after" for each key of two summary inventories (sorted
// value lists: libtorch_version, driver, gpu_model, milarun ...) that differ.
std::vector<std::string> inventory_changes(const json& before, const json& after) {
  const auto text = [](const json& inv, const std::string& key) {
    const json v = inv.is_object() ? inv.value(key, json()) : json();
    if (!v.is_array()) return v.is_null() ? std::string("-") : v.dump();
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + (x.is_string() ? x.get<std::string>() : x.dump());
    return out.empty() ? std::string("-") : out;
  };
  std::set<std::string> keys;
  for (const json* inv : {&before, &after})
    if (inv->is_object())
      for (const auto& [k, v] : inv->items()) keys.insert(k);
  std::vector<std::string> out;
  for (const auto& k : keys)
    if (text(before, k) != text(after, k)) out.push_back(k + " " + text(before, k) + " -> " + text(after, k));
  return out;
}

}  // namespace

std::vector<TestTrend> test_trends(ResultStore& s, const HistoryFilter& f, int previous) {
  std::vector<TestTrend> out;
  for (const auto& [key, parts] : load_parts(s, f)) {
    TestTrend t{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), {}};
    std::optional<json> inventory_before;  // of the last suite run judged
    for (std::size_t i = 0; i < parts.size(); ++i) {
      std::vector<LabeledResult> base;
      for (std::size_t j = i > static_cast<std::size_t>(previous) ? i - previous : 0; j < i; ++j)
        base.insert(base.end(), parts[j].docs.begin(), parts[j].docs.end());
      TrendPoint pt;
      pt.suite_id = parts[i].suite_id;
      pt.when = parts[i].when;
      pt.contended = parts[i].contended;
      if (parts[i].docs.empty()) {  // every run of it shared its devices: nothing of the machine's to judge
        pt.verdict = "no verdict: every run was contended";
        t.points.push_back(pt);
        continue;
      }
      const json summary = summary_of(parts[i].docs);
      const json inventory = summary.contains(t.test) ? summary[t.test].value("inventory", json()) : json();
      if (inventory_before) pt.changes = inventory_changes(*inventory_before, inventory);
      inventory_before = inventory;
      const ReportRow r = row_of(t.test, summary, base);
      pt.perf = r.perf, pt.lo = r.ci.lo, pt.hi = r.ci.hi;
      pt.n = static_cast<int>(r.n), pt.fail = static_cast<int>(r.fail);
      pt.verdict = r.verdict;
      pt.regression = r.verdict_kind == "slower" &&
                      (!std::isfinite(r.noise_floor_pct) || std::fabs(r.diff_pct) > r.noise_floor_pct);
      t.points.push_back(pt);
    }
    out.push_back(std::move(t));
  }
  return out;
}

json suite_summary(ResultStore& s, std::int64_t suite_id, std::vector<std::string>& warnings) {
  std::vector<LabeledResult> docs;
  for (auto& [file, doc] : s.run_docs(suite_id)) docs.push_back({file, "store run " + file, std::move(doc)});
  return summarize_results(docs, warnings);
}

int print_history(ResultStore& s, const HistoryFilter& f, int previous, std::ostream& out) {
  const auto suites = s.suite_runs(f);
  const std::string head = fmt::format("{:>5}  {:<19}  {:<19}  {:<16}  {:<10} {:>5} {:>5}  {}", "id", "started (UTC)",
                                       "ended (UTC)", "machine", "suite", "runs", "fail", "milarun");
  out << "suite runs\n" << head << "\n" << std::string(head.size() + 10, '-') << "\n";
  for (const auto& r : suites)
    out << terminal_safe(fmt::format("{:>5}  {:<19}  {:<19}  {:<16}  {:<10} {:>5} {:>5}  {} ({})", r.id,
                                     r.info.started_at, r.info.ended_at, r.info.machine, r.info.suite, r.runs,
                                     r.failures, r.milarun_version.empty() ? "-" : r.milarun_version,
                                     r.milarun_commit.empty() ? "-" : r.milarun_commit))
        << "\n";
  int regressions = 0;
  const auto trends = test_trends(s, f, previous);
  out << fmt::format(
      "\nperf over time (examples/s, 95% interval), each suite run against the previous {} of the same "
      "machine, arguments, data and shortcuts; runs that shared their devices (contended) are left out of both "
      "sides\n",
      previous);
  for (const auto& t : trends) {
    out << terminal_safe(fmt::format("{}  on {}  arguments {}{}", t.test, t.machine, t.config,
                                     t.inputs.empty() ? "" : "  (" + t.inputs + ")"))
        << "\n";
    for (const auto& p : t.points) {
      const std::string ci = std::isfinite(p.lo) ? fmt::format("[{:.2f}, {:.2f}]", p.lo, p.hi) : "-";
      const std::string left_out = p.contended ? fmt::format("  ({} contended run(s) left out)", p.contended) : "";
      const std::string perf = std::isfinite(p.perf) ? fmt::format("{:.2f}", p.perf) : "-";
      out << fmt::format("  {:>5}  {:<19} {:>3} run(s) {:>2} fail {:>12}  {:<22} {}{}{}\n", p.suite_id, p.when, p.n,
                         p.fail, perf, ci, p.verdict.empty() ? "" : p.verdict, p.regression ? "  REGRESSION" : "",
                         left_out);
      if (!p.changes.empty())
        out << terminal_safe("         changed since the suite run before: " +
                             fmt::format("{}", fmt::join(p.changes, "; ")))
            << "\n";
    }
    if (!t.points.empty() && t.points.back().regression) ++regressions;
  }
  out << fmt::format("\nregressions (newest run of a test slower than the ones before, beyond the margin): {}\n",
                     regressions);
  return regressions;
}

}  // namespace milabench::store
