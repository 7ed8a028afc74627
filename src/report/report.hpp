// `milarun report` and `milarun summary`: the entry points the CLI calls.
#pragma once
#include <cmath>
#include <ostream>
#include <string>

#include "report/report_data.hpp"

namespace milabench {

struct ReportOptions {
  std::string input;    // results directory, or a summary JSON file (baseline schema)
  std::string weights;  // JSON {test: {"weight": w}}; empty: every test weight 1
  std::string compare;  // another summary JSON to compare against; empty: none
  // A baseline summary already built (the store's `--compare @ID`), used
  // instead of reading `compare`; `compare_label` names it in messages.
  nlohmann::json compare_summary;
  std::string compare_label;
  // The results store's trends (store/history.hpp); the HTML report charts
  // those of its own tests.
  std::vector<TestTrend> trends;
  double margin_pct = NAN;    // --margin: equivalence margin of --compare, % in [0, 100); NaN: learned
  std::string html;           // path of a self-contained HTML page to write; empty: none
  double price = 0;           // dollars (> 0), prints price/score; 0: not given
  bool price_given = false;   // --price was on the command line: it must then be > 0
  bool margin_given = false;  // --margin was on the command line: NaN is then an error, not "learned"
  bool compare_gpus = false;  // per-device perf relative to the best device
  std::string csv;            // path: the main table as CSV; empty: none
  std::string markdown;       // path: the main table + score as Markdown; empty: none
  std::string title;
};

// Prints the report to out, warnings/errors to err (one clear line each:
// naming the file and what to do). Returns the process exit code: 0 ok,
// 2 bad input (missing/unreadable/malformed input, weights or compare file,
// a price that is not > 0, --margin outside [0, 100); limits and checks: report/summary_check.hpp), 1 when the
// HTML, CSV or Markdown file cannot be written.
int run_report(const ReportOptions& opts, std::ostream& out, std::ostream& err);

// Writes the summary JSON of OUTDIR to out_file (atomically: temp file +
// rename) or to `out` when out_file is empty. Skipped result files are
// reported on err. Returns 0, 2 on bad input (not a directory), 1 when
// out_file cannot be written.
int run_summary(const std::string& outdir, const std::string& out_file, std::ostream& out, std::ostream& err);

// Fixed-width text rendering of a report: the original table and scores,
// then the evidence sections (steady state, fairness, significance, inventory).
void print_report(const ReportData& d, std::ostream& out);

// "0.0123", "<0.0001", or "-" for NaN.
std::string p_cell(double p);

}  // namespace milabench
