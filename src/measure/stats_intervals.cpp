#include "measure/stats_intervals.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace milabench {

Interval t_interval(const std::vector<double>& values, double level) {
  const std::vector<double> v = finite_only(values);
  if (v.size() < kMinRunsForInterval) return no_interval();
  return t_mean_ci(static_cast<double>(v.size()), mean_of(v), sample_sd(v), level);
}

double lag1_autocorrelation(const std::vector<double>& series) {
  const std::vector<double> v = finite_only(series);
  const size_t n = v.size();
  if (n < 4) return 0;
  const double m = mean_of(v);
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    den += (v[i] - m) * (v[i] - m);
    if (i + 1 < n) num += (v[i] - m) * (v[i + 1] - m);
  }
  if (!(den > 0)) return 0;
  const double r = num / den, nd = static_cast<double>(n);
  const double corrected = (nd * r + 1) / (nd - 4);  // solves r = φ - (1+4φ)/n for φ
  return std::clamp(corrected, 0.0, 0.95);
}

double ar1_variance_factor(double phi, size_t n) {
  double f = 1, pk = 1;
  const double nd = static_cast<double>(n);
  for (size_t k = 1; k < n; ++k) {
    pk *= phi;
    f += 2 * (1 - static_cast<double>(k) / nd) * pk;
  }
  return f;
}

double ar1_slope_variance_factor(double phi, size_t n) {
  if (n < 3 || phi == 0) return 1;
  const double xm = (static_cast<double>(n) - 1) / 2;
  double sxx = 0;
  for (size_t i = 0; i < n; ++i) sxx += (i - xm) * (i - xm);
  double s = sxx, pk = 1;
  for (size_t k = 1; k < n; ++k) {
    pk *= phi;
    double cross = 0;  // Σ_i w_i w_{i+k}
    for (size_t i = 0; i + k < n; ++i) cross += (i - xm) * (i + k - xm);
    s += 2 * pk * cross;
  }
  return s / sxx;
}

Interval series_mean_ci(const std::vector<double>& series, double level) {
  const std::vector<double> v = finite_only(series);
  const size_t n = v.size();
  if (n < 4) return no_interval();
  const double nd = static_cast<double>(n);
  const double f = ar1_variance_factor(lag1_autocorrelation(v), n);
  // E[s²] = σ² (n - f)/(n - 1) for a correlated series: undo that shrinkage.
  const double s = sample_sd(v) * std::sqrt((nd - 1) / std::max(nd - f, 1.0));
  const double n_eff = std::max(nd / f, 2.0);
  const double half = student_t_quantile((1 + level) / 2, n_eff - 1) * s * std::sqrt(f / nd);
  const double m = mean_of(v);
  return {m - half, m + half};
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) return kNaN;
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double mad_sd(const std::vector<double>& values) {
  const std::vector<double> v = finite_only(values);
  if (v.size() < 2) return kNaN;
  const double med = median_of(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - med));
  return 1.4826 * median_of(dev);
}

double gamma_draw(Rng& rng, double shape) {
  if (shape < 1) return gamma_draw(rng, shape + 1) * std::pow(std::max(rng.uniform(), 1e-300), 1 / shape);
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = rng.uniform();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (u > 0 && std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
  }
}

Interval welch_difference_ci(double n1, double m1, double s1, double n2, double m2, double s2, double level) {
  if (!(n1 >= 2 && n2 >= 2) || !std::isfinite(m1 - m2) || !std::isfinite(s1) || !std::isfinite(s2))
    return no_interval();
  const double v1 = s1 * s1 / n1, v2 = s2 * s2 / n2, d = m1 - m2;
  if (v1 + v2 <= 0) return {d, d};
  const double df = (v1 + v2) * (v1 + v2) / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1));
  const double half = student_t_quantile((1 + level) / 2, df) * std::sqrt(v1 + v2);
  return {d - half, d + half};
}

Interval hodges_lehmann_ci(const std::vector<double>& a_in, const std::vector<double>& b_in, double level) {
  const std::vector<double> a = finite_only(a_in), b = finite_only(b_in);
  if (a.empty() || b.empty()) return no_interval();
  const double m = static_cast<double>(a.size()), n = static_cast<double>(b.size());
  const double z = normal_quantile((1 + level) / 2);
  const double k = std::floor(m * n / 2 - z * std::sqrt(m * n * (m + n + 1) / 12) - 0.5);
  if (k < 0) return no_interval();
  std::vector<double> d;
  d.reserve(a.size() * b.size());
  for (double x : a)
    for (double y : b) d.push_back(x - y);
  std::sort(d.begin(), d.end());
  const size_t ki = static_cast<size_t>(k);
  return {d[ki], d[d.size() - 1 - ki]};
}

double runs_needed(double cv, double delta, double alpha, double power) {
  if (!(cv > 0) || !(delta > 0)) return kNaN;
  // Normal quantiles first, then t quantiles at the resulting df = 2n - 2
  // (few runs need more than the normal formula says).
  double z = normal_quantile(1 - alpha / 2) + normal_quantile(power);
  double n = std::max(3.0, std::ceil(2 * z * z * (cv / delta) * (cv / delta)));
  for (int i = 0; i < 20 && n < 1e7; ++i) {
    const double df = 2 * n - 2;
    z = student_t_quantile(1 - alpha / 2, df) + student_t_quantile(power, df);
    const double next = std::max(3.0, std::ceil(2 * z * z * (cv / delta) * (cv / delta)));
    if (next == n) break;
    n = next;
  }
  return n;
}

MarginVerdict against_margin(const Interval& diff, double margin) {
  if (!diff.valid() || !(margin >= 0) || !std::isfinite(margin)) return MarginVerdict::undecided;
  if (diff.lo > margin || diff.hi < -margin) return MarginVerdict::beyond;
  if (diff.lo >= -margin && diff.hi <= margin) return MarginVerdict::within;
  return MarginVerdict::undecided;
}

const char* margin_verdict_name(MarginVerdict v) {
  return v == MarginVerdict::beyond ? "beyond" : v == MarginVerdict::within ? "within" : "undecided";
}

double runs_to_decide_margin(double cv, double diff, double margin) {
  return runs_needed(cv, std::fabs(std::fabs(diff) - margin));
}

}  // namespace milabench
