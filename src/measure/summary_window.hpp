// The summary window, defined once: a run's perf is mean(rates[-20:-2]) (the
// original's report.py), the last 20 slices without the last 2 — 18 slices,
// i.e. the last 10 s minus the last second at 0.5 s per slice.
#pragma once
#include <algorithm>
#include <limits>
#include <vector>

namespace milabench {

constexpr int kSummaryWindowSlices = 18;   // slices averaged
constexpr int kSummaryWindowDropLast = 2;  // last slices left out (the partial one among them)

// mean(rates[-20:-2]) with Python's slice semantics: fewer than 3 rates
// give an empty slice, hence NaN.
inline double summary_window_mean(const std::vector<double>& rates) {
  const long n = static_cast<long>(rates.size());
  const long begin = std::max(0L, n - (kSummaryWindowSlices + kSummaryWindowDropLast));
  const long end = std::max(0L, n - kSummaryWindowDropLast);
  if (end <= begin) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (long i = begin; i < end; ++i) sum += rates[i];
  return sum / static_cast<double>(end - begin);
}

}  // namespace milabench
