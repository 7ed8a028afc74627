// Self-contained HTML page of a report: inline CSS, no scripts, no network.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "report/report_data.hpp"
#include "report/summary.hpp"

namespace milabench {

// Escapes & < > " ' for HTML text and attribute values.
std::string html_escape(const std::string& s);

// The page a reader gets (html.cpp, html_charts.cpp, html_tables.cpp):
// headline (score and its interval, failure-rate PASS/FAIL, ratio with
// compare), context box, summary-window flags, the results table with units,
// ratio bar chart (compare), device x test matrix (compare_gpus), one rate
// chart per test when `series` is non-null (input was a results directory;
// at most 500 points per line), steady state and significance. Sections are
// <section id="..."> (headline is <header id="headline">). Every string from
// a result, summary or option is escaped; no script, no external resource.
// With d.trends, a "history" section of trend charts (trend.hpp).
std::string render_html(const ReportData& d, const std::map<std::string, std::vector<RateSeries>>* series);

// `milarun history --html`: a page of the trend charts alone.
std::string history_html(const std::vector<TestTrend>& trends);

}  // namespace milabench
