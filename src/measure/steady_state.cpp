#include "measure/steady_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "measure/stats.hpp"

namespace milabench {

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// The summary window, or empty when the series is too short.
std::vector<double> window_of(const std::vector<double>& rates, const SteadyOptions& o) {
  const size_t need = static_cast<size_t>(o.window_slices + o.drop_last);
  if (o.window_slices < 3 || rates.size() < need) return {};
  const size_t end = rates.size() - static_cast<size_t>(o.drop_last);
  return std::vector<double>(rates.begin() + static_cast<long>(end - o.window_slices),
                             rates.begin() + static_cast<long>(end));
}
}  // namespace

WindowCheck check_window(const std::vector<double>& rates, const SteadyOptions& o) {
  WindowCheck c;
  const std::vector<double> w = window_of(rates, o);
  if (w.empty()) {
    c.reason = fmt::format("shorter than the {:.0f} s window", (o.window_slices + o.drop_last) * o.sample_duration);
    return c;
  }
  c.long_enough = true;
  for (double x : w)
    if (!std::isfinite(x)) {
      c.reason = "non-finite rate in the window";
      return c;
    }
  const double n = static_cast<double>(w.size());
  c.mean = mean_of(w);
  if (!(c.mean > 0)) {
    c.reason = "no progress in the window";
    return c;
  }
  const double sd = sample_sd(w);
  c.cv = sd / c.mean;
  // Least-squares slope against the slice index.
  const double xm = (n - 1) / 2;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    sxx += (i - xm) * (i - xm);
    sxy += (i - xm) * (w[i] - c.mean);
  }
  const double slope = sxy / sxx;
  double ss_res = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    const double e = w[i] - (c.mean + slope * (i - xm));
    ss_res += e * e;
  }
  const double se = std::sqrt(ss_res / (n - 2) / sxx);
  c.trend_t = se > 0 ? slope / se : (slope == 0 ? 0 : INFINITY);
  c.drift = slope * (n - 1) / c.mean;
  const bool trend = std::fabs(c.drift) > o.max_drift && std::fabs(c.trend_t) >= o.min_trend_t;
  const bool spread = c.cv > o.max_cv;
  if (trend)
    c.reason = fmt::format("trend {:+.1f}% across the window (limit {:.0f}%)", c.drift * 100, o.max_drift * 100);
  if (spread)
    c.reason += fmt::format("{}spread {:.1f}% (limit {:.0f}%)", trend ? ", " : "", c.cv * 100, o.max_cv * 100);
  c.steady = !trend && !spread;
  return c;
}

bool settled(const std::vector<double>& rates, const SteadyOptions& o) {
  const size_t win = static_cast<size_t>(o.window_slices);
  if (rates.size() < 2 * win + static_cast<size_t>(o.drop_last)) return false;
  const WindowCheck c = check_window(rates, o);
  if (!c.steady) return false;
  const size_t end = rates.size() - static_cast<size_t>(o.drop_last) - win;
  const double before = mean_of(
      std::vector<double>(rates.begin() + static_cast<long>(end - win), rates.begin() + static_cast<long>(end)));
  return std::fabs(before - c.mean) <= o.max_drift * c.mean;
}

double warmup_seconds(const std::vector<double>& rates, const SteadyOptions& o) {
  const std::vector<double> w = window_of(rates, o);
  if (w.empty()) return kNaN;
  const double level = median_of(w);
  const size_t k = static_cast<size_t>(std::max(1, o.smooth));
  double sd = sample_sd(w);
  if (!std::isfinite(sd)) sd = 0;
  // Noise allowance: 5 standard errors of (mean of k slices - level), so a
  // steady noisy run is almost never called warm anywhere along its length.
  const double se = sd * std::sqrt(1.0 / static_cast<double>(k) + 1.0 / static_cast<double>(w.size()));
  const double tol = std::max(o.band * std::fabs(level), 5 * se);
  const size_t end = rates.size() - static_cast<size_t>(o.drop_last);
  // The last run of k slices whose mean is off the level ends the warm-up.
  size_t warm = 0;
  for (size_t j = 0; j + k <= end; ++j) {
    double s = 0;
    for (size_t i = j; i < j + k; ++i) s += rates[i];
    const double m = s / static_cast<double>(k);
    if (!(std::fabs(m - level) <= tol)) warm = j + 1;
  }
  return static_cast<double>(warm) * o.sample_duration;
}

}  // namespace milabench
