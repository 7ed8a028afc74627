// The summary window, defined once: a run's perf is mean(rates[-20:-2]) (the
// original's report.py), the last 20 slices without the last 2 — 18 slices,
// i.e. the last 10 s minus the last second at 0.5 s per slice.
#pragma once
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace milabench {

constexpr int kSummaryWindowSlices = 18;   // slices averaged
constexpr int kSummaryWindowDropLast = 2;  // last slices left out (the partial one among them)

// [begin, end) of the window among n slices: rates[-20:-2] with Python's
// slice semantics (empty, begin == end, with fewer than 3 slices).
inline std::pair<long, long> summary_window_bounds(long n) {
  const long begin = std::max(0L, n - (kSummaryWindowSlices + kSummaryWindowDropLast));
  const long end = std::max(begin, n - kSummaryWindowDropLast);
  return {begin, end};
}

// mean(rates[-20:-2]): NaN when the window is empty.
inline double summary_window_mean(const std::vector<double>& rates) {
  const auto [begin, end] = summary_window_bounds(static_cast<long>(rates.size()));
  if (end <= begin) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (long i = begin; i < end; ++i) sum += rates[i];
  return sum / static_cast<double>(end - begin);
}

}  // namespace milabench
