#include "store/history.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "report/report_data.hpp"
#include "report/summary.hpp"
#include "results/input_checks.hpp"

namespace milabench::store {
using nlohmann::json;

namespace {

struct SuitePart {
  std::int64_t suite_id = 0;
  std::string when;
  std::vector<LabeledResult> docs;
};
using TrendKey = std::tuple<std::string, std::string, std::string>;  // test, machine, config

// The counted runs of the filtered suite runs, grouped by trend, each
// trend's suite runs oldest first.
std::map<TrendKey, std::vector<SuitePart>> load_parts(ResultStore& s, const HistoryFilter& f) {
  std::string sql =
      "SELECT r.test, s.machine, r.config, s.id, s.started_at, r.file, r.doc FROM runs r JOIN suite_runs s ON "
      "s.id = r.suite_run_id WHERE r.counted = 1";
  SqlParams p;
  if (!f.test.empty()) sql += " AND r.test = ?", p.push_back(f.test);
  if (!f.machine.empty()) sql += " AND s.machine = ?", p.push_back(f.machine);
  if (!f.since.empty()) sql += " AND s.started_at >= ?", p.push_back(f.since);
  sql += " ORDER BY s.started_at, s.id, r.file";
  std::map<TrendKey, std::vector<SuitePart>> out;
  for (const auto& row : s.connection().query(sql, p)) {
    auto& parts = out[{*row.at(0), row.at(1).value_or(""), row.at(2).value_or("")}];
    const std::int64_t id = std::stoll(*row.at(3));
    if (parts.empty() || parts.back().suite_id != id) parts.push_back({id, row.at(4).value_or(""), {}});
    parts.back().docs.push_back({*row.at(5), "store run " + *row.at(5), json::parse(*row.at(6))});
  }
  return out;
}

// The report row of `test` in the report of `docs` against `base` (no
// comparison when `base` is empty).
ReportRow row_of(const std::string& test, const std::vector<LabeledResult>& docs,
                 const std::vector<LabeledResult>& base) {
  std::vector<std::string> ignored;  // the suite's own report warns about its files
  const json summary = summarize_results(docs, ignored);
  const json baseline = base.empty() ? json() : summarize_results(base, ignored);
  const ReportData d = build_report(summary, json(), baseline, 0, false, "");
  for (const auto& r : d.rows)
    if (r.name == test) return r;
  return ReportRow{};
}

}  // namespace

std::vector<TestTrend> test_trends(ResultStore& s, const HistoryFilter& f, int previous) {
  std::vector<TestTrend> out;
  for (const auto& [key, parts] : load_parts(s, f)) {
    TestTrend t{std::get<0>(key), std::get<1>(key), std::get<2>(key), {}};
    for (std::size_t i = 0; i < parts.size(); ++i) {
      std::vector<LabeledResult> base;
      for (std::size_t j = i > static_cast<std::size_t>(previous) ? i - previous : 0; j < i; ++j)
        base.insert(base.end(), parts[j].docs.begin(), parts[j].docs.end());
      const ReportRow r = row_of(t.test, parts[i].docs, base);
      TrendPoint pt;
      pt.suite_id = parts[i].suite_id;
      pt.when = parts[i].when;
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
      "machine and arguments\n",
      previous);
  for (const auto& t : trends) {
    out << terminal_safe(fmt::format("{}  on {}  arguments {}", t.test, t.machine, t.config)) << "\n";
    for (const auto& p : t.points) {
      const std::string ci = std::isfinite(p.lo) ? fmt::format("[{:.2f}, {:.2f}]", p.lo, p.hi) : "-";
      out << fmt::format("  {:>5}  {:<19} {:>3} run(s) {:>2} fail {:>12.2f}  {:<22} {}{}\n", p.suite_id, p.when, p.n,
                         p.fail, p.perf, ci, p.verdict.empty() ? "" : p.verdict, p.regression ? "  REGRESSION" : "");
    }
    if (!t.points.empty() && t.points.back().regression) ++regressions;
  }
  out << fmt::format("\nregressions (newest run of a test slower than the ones before, beyond the margin): {}\n",
                     regressions);
  return regressions;
}

}  // namespace milabench::store
