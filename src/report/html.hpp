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

// The page: title, the table, the scores, the per-GPU ratios and, when
// `series` is non-null (input was a results directory), one inline SVG line
// chart of rate (examples/s) over time (slice index * 0.5 s) per test, one
// polyline per result file, at most ~500 points each. Every string from a
// result/summary file is escaped.
std::string render_html(const ReportData& d,
                        const std::map<std::string, std::vector<RateSeries>>* series);

}  // namespace milabench
