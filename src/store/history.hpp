// History over the store: per test, machine and configuration (the run's
// arguments), each suite run's perf with its 95% interval, and the
// regression check — each suite run against the previous N of the same
// machine and configuration, through the report's comparison
// (report/report_data.hpp build_report: Welch's t and the margin rule).
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report/trend.hpp"
#include "store/result_store.hpp"

namespace milabench::store {

// The trends of every (test, machine, configuration) of the filtered suite
// runs, sorted by test then machine; each point compared with the previous
// `previous` points (>= 1).
std::vector<TestTrend> test_trends(ResultStore& s, const HistoryFilter& f, int previous);

// The summary (report/summary.hpp, baseline schema) of one suite run's results.
nlohmann::json suite_summary(ResultStore& s, std::int64_t suite_id, std::vector<std::string>& warnings);

// `milarun history`: the suite runs, each test's perf over time, and the
// newest point of each trend judged against the ones before. Returns the
// number of regressions found.
int print_history(ResultStore& s, const HistoryFilter& f, int previous, std::ostream& out);

}  // namespace milabench::store
