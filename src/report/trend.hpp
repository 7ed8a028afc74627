// A test's perf over the suite runs of one machine and configuration, from
// the results store (store/history.hpp), rendered by the text history and
// the HTML trend charts (html_trend.cpp).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace milabench {

struct TrendPoint {
  std::int64_t suite_id = 0;
  std::string when;           // the suite run's start, "YYYY-mm-dd HH:MM:SS" UTC
  double perf = NAN;          // mean perf of its runs, examples/s
  double lo = NAN, hi = NAN;  // its 95% interval (NaN: too few runs)
  int n = 0, fail = 0;        // of the runs it judges: counted runs that had their devices to themselves
  int contended = 0;          // counted runs left out: they shared their devices (ResultRecord::contended)
  std::string verdict;        // against the previous points (the report's sentence); "" for the first
  bool regression = false;    // slower, significant, and beyond the margin
  // What its runs' inventory (the summary's: libtorch_version, driver,
  // gpu_model, milarun ...) changed since the point before: "KEY a -> b".
  std::vector<std::string> changes;
};

struct TestTrend {
  std::string test, machine, config;  // config: the arguments as JSON text
  std::string inputs;                 // "synthetic data", "opt-in shortcuts [...]", both, or "" (real data)
  std::vector<TrendPoint> points;     // oldest first
};

// Inline SVG charts (no script) of each trend: perf with its interval over
// the suite runs, regressions in red. "" when no trend has 2 points.
std::string trend_charts_html(const std::vector<TestTrend>& trends);

}  // namespace milabench
