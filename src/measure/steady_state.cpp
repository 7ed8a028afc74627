#include "measure/steady_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "measure/stats.hpp"
#include "measure/stats_intervals.hpp"

namespace milabench {

namespace {

// The summary window, or empty when the series is too short.
std::vector<double> window_of(const std::vector<double>& rates, const SteadyOptions& o) {
  const size_t need = static_cast<size_t>(o.window_slices + o.drop_last);
  if (o.window_slices < 3 || rates.size() < need) return {};
  const size_t end = rates.size() - static_cast<size_t>(o.drop_last);
  return std::vector<double>(rates.begin() + static_cast<long>(end - o.window_slices),
                             rates.begin() + static_cast<long>(end));
}
}  // namespace

namespace {
// Least-squares line through y against its index: slope, residuals, and the
// residuals' lag-1 autocorrelation (bias-corrected; a fitted line leaves its
// residuals a further ~2/n less correlated than the noise, measured on AR(1)
// series, docs/statistics.md).
struct Line {
  double slope = 0, ss_res = 0, sxx = 0, phi = 0;
  std::vector<double> residuals;
};

Line fit_line(const std::vector<double>& y) {
  Line l;
  const double n = static_cast<double>(y.size()), xm = (n - 1) / 2, ym = mean_of(y);
  double sxy = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    l.sxx += (i - xm) * (i - xm);
    sxy += (i - xm) * (y[i] - ym);
  }
  l.slope = sxy / l.sxx;
  for (size_t i = 0; i < y.size(); ++i) {
    l.residuals.push_back(y[i] - (ym + l.slope * (i - xm)));
    l.ss_res += l.residuals.back() * l.residuals.back();
  }
  l.phi = std::min(0.95, lag1_autocorrelation(l.residuals) + 2 / n);
  return l;
}

// Slices before the rate settled (SteadyOptions::band); SIZE_MAX when the
// series is shorter than the window. Noise (sd, autocorrelation) is taken
// from the window's residuals around its line, so a trend is not mistaken
// for noise.
size_t warmup_slices(const std::vector<double>& rates, const SteadyOptions& o, double* band = nullptr) {
  const std::vector<double> w = window_of(rates, o);
  if (w.empty()) return SIZE_MAX;
  const double level = median_of(w);
  const size_t k = static_cast<size_t>(std::max(1, o.smooth));
  const double wn = static_cast<double>(w.size()), kd = static_cast<double>(k);
  // The noise comes from the window's later half: a warm-up still inside the
  // window (a fast run stopped early) would otherwise inflate the residuals
  // of the whole window's line until the warm-up passed for noise.
  const std::vector<double> tail(w.begin() + static_cast<long>(w.size() / 2), w.end());
  const Line line = fit_line(tail);
  const double tn = static_cast<double>(tail.size());
  // Two standard errors above the estimate: an underestimated correlation
  // would call noisy stretches a warm-up.
  const double phi = std::min(0.95, line.phi + 2 * std::sqrt((1 - line.phi * line.phi) / tn));
  const double fw = ar1_variance_factor(phi, w.size()), fk = ar1_variance_factor(phi, k);
  double sd = std::sqrt(line.ss_res / std::max(tn - ar1_variance_factor(phi, tail.size()) - 1, tn / 3));
  if (!std::isfinite(sd)) sd = 0;
  // Noise allowance: 5 standard errors of (mean of k slices - level), so a
  // steady noisy run is almost never called warm anywhere along its length.
  const double se = sd * std::sqrt(fk / kd + fw / wn);
  const double tol = std::max(o.band * std::fabs(level), 5 * se);
  if (band) *band = level != 0 ? tol / std::fabs(level) : kNaN;
  const size_t end = rates.size() - static_cast<size_t>(o.drop_last);
  // The last run of k slices whose mean is off the level ends the warm-up.
  size_t warm = 0;
  for (size_t j = 0; j + k <= end; ++j) {
    double s = 0;
    for (size_t i = j; i < j + k; ++i) s += rates[i];
    if (!(std::fabs(s / kd - level) <= tol)) warm = j + 1;
  }
  return warm;
}

struct Trend {
  double slope = 0, t = 0, p = 1, phi = 0;
};

// The slope of y tested against 0, allowing for AR(1) residuals with the
// estimated φ: Var(slope) = σ²/Sxx · g (g = ar1_slope_variance_factor, exact
// for n), σ² = ss_res / (n - f - g) (a fitted mean and slope absorb f + g of
// the correlated noise's n variance units, f = ar1_variance_factor), t with
// n/g - 2 degrees of freedom.
Trend fit_trend(const std::vector<double>& y) {
  const Line l = fit_line(y);
  Trend tr{l.slope, 0, 1, l.phi};
  const size_t n = y.size();
  const double g = ar1_slope_variance_factor(tr.phi, n), f = ar1_variance_factor(tr.phi, n);
  const double nd = static_cast<double>(n);
  const double se = std::sqrt(l.ss_res / std::max(nd - f - g, 1.0) / l.sxx * g);
  if (!(se > 0)) {
    tr.t = tr.slope == 0 ? 0 : INFINITY;
    tr.p = tr.slope == 0 ? 1 : 0;
    return tr;
  }
  tr.t = tr.slope / se;
  tr.p = 2 * student_t_cdf(-std::fabs(tr.t), std::max(1.0, nd / g - 2));
  return tr;
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
  const size_t end = rates.size() - static_cast<size_t>(o.drop_last);
  const size_t win = static_cast<size_t>(o.window_slices);
  // Trend span: up to trend_slices, never into the warm-up or the guard after
  // it, at least the window.
  size_t span = std::max(win, static_cast<size_t>(std::max(o.trend_slices, o.window_slices)));
  span = std::min(span, end);
  for (size_t i = end - span; i < end; ++i)
    if (!std::isfinite(rates[i])) {
      if (i >= end - win) {
        c.reason = "non-finite rate in the window";
        return c;
      }
      span = end - i - 1;
    }
  const size_t warm = warmup_slices(rates, o);
  if (warm != SIZE_MAX && warm > 0 && warm < end)
    span = std::min(span, end - std::min(end, warm + static_cast<size_t>(std::max(0, o.trend_guard))));
  span = std::max(span, win);
  c.mean = mean_of(w);
  if (!(c.mean > 0)) {
    c.reason = "no progress in the window";
    return c;
  }
  c.cv = sample_sd(w) / c.mean;
  const Trend tr = fit_trend(
      std::vector<double>(rates.begin() + static_cast<long>(end - span), rates.begin() + static_cast<long>(end)));
  c.trend_slices = static_cast<int>(span);
  c.trend_t = tr.t;
  c.trend_p = tr.p;
  c.autocorrelation = tr.phi;
  c.drift = tr.slope * static_cast<double>(win - 1) / c.mean;
  const bool trend = std::fabs(c.drift) > o.max_drift && tr.p < o.trend_alpha;
  const bool spread = c.cv > o.max_cv;
  if (trend)
    c.reason = fmt::format("trend {:+.1f}% across the window (limit {:.0f}%; p {:.3f} over {:.0f} s)", c.drift * 100,
                           o.max_drift * 100, tr.p, static_cast<double>(span) * o.sample_duration);
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

double warmup_band(const std::vector<double>& rates, const SteadyOptions& o) {
  double band = kNaN;
  warmup_slices(rates, o, &band);
  return band;
}

double warmup_seconds(const std::vector<double>& rates, const SteadyOptions& o) {
  const size_t warm = warmup_slices(rates, o);
  return warm == SIZE_MAX ? kNaN : static_cast<double>(warm) * o.sample_duration;
}

}  // namespace milabench
