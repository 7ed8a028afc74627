// Fuzz target: the weights and baseline / summary readers of `milarun report`
// (report/summary_check.hpp, report/report_data.hpp). Contract under test:
// a document is either refused with one line naming the file, or accepted,
// and then build_report and print_report run on it (as summary, weights and
// baseline at once) without throwing, and every score they print is finite
// and not negative (0: the original's log(0) score, report/report_data.hpp) or NaN.
// No crash or sanitizer report.
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_contract.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "report/summary_check.hpp"

using milabench::fuzz::check_error_message;
using milabench::fuzz::require;

namespace {
bool finite_nonnegative_or_nan(double v) { return std::isnan(v) || (std::isfinite(v) && v >= 0); }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json doc;
  try {
    doc = milabench::parse_json_lenient(text);
  } catch (const nlohmann::json::exception&) {
    return 0;  // a parse error: run_report says so in one line (read_json_file)
  }
  const std::string weights_problem = milabench::weights_problem(doc, "fuzz/weights.json");
  const std::string summary_problem = milabench::summary_problem(doc, "fuzz/baseline.json");
  if (!weights_problem.empty()) check_error_message(weights_problem, "fuzz/weights.json: ");
  if (!summary_problem.empty()) check_error_message(summary_problem, "fuzz/baseline.json: ");
  if (!summary_problem.empty()) return 0;
  const nlohmann::json weights = weights_problem.empty() ? doc : nlohmann::json();
  milabench::ReportData d = milabench::build_report(doc, weights, doc, 100.0, true, "fuzz");
  require(finite_nonnegative_or_nan(d.score) && finite_nonnegative_or_nan(d.base_score));
  require(finite_nonnegative_or_nan(d.common_score));
  require(d.covered_tests <= d.weighted_tests);
  std::ostringstream out;
  milabench::print_report(d, out);
  require(out.str().find('\x1b') == std::string::npos);
  return 0;
}
