// The report's main table for spreadsheets (CSV) and issue trackers
// (Markdown). Same rows and numbers as the text table.
#pragma once
#include <string>

#include "report/report_data.hpp"

namespace milabench {

// RFC 4180 CSV with a header row: test, weight, n, fail, perf, std_pct,
// perf_adj, ci95_lo, ci95_hi, and with compare perf_base, perf_ratio,
// perf_base_adj, perf_ratio_adj, p_value, verdict. Numbers at full
// precision; unknown values are empty cells; fields with , " or newlines
// are quoted.
std::string table_csv(const ReportData& d);

// GitHub-flavoured Markdown table of the same columns (2 decimals, "-" for
// unknown, | and newlines in names escaped), followed by the score line(s).
std::string table_markdown(const ReportData& d);

}  // namespace milabench
