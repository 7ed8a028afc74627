#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sys/splitmix.hpp"

namespace milabench {

namespace {
const double kPi = 3.14159265358979323846;

}  // namespace

std::vector<double> finite_only(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v)
    if (std::isfinite(x)) out.push_back(x);
  return out;
}

uint64_t Rng::next() { return splitmix64_next(state_); }

uint64_t Rng::below(uint64_t n) {
  // Rejection of the short top range removes modulo bias.
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  uint64_t x;
  do x = next();
  while (x >= limit);
  return x % n;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

double Rng::normal() {
  double u1 = uniform();
  while (u1 <= 0) u1 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * kPi * uniform());
}

bool Interval::valid() const { return std::isfinite(lo) && std::isfinite(hi); }
Interval no_interval() { return {kNaN, kNaN}; }

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double sample_sd(const std::vector<double>& v) {
  if (v.size() < 2) return kNaN;
  const double m = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

double median_of(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, 0.5);
}

double quantile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return kNaN;
  const double pos = q * static_cast<double>(s.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= s.size()) return s.back();
  return s[i] + (pos - static_cast<double>(i)) * (s[i + 1] - s[i]);
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

namespace {
// Continued fraction of the incomplete beta (modified Lentz evaluation).
double beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300, eps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    // Even step.
    double num = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
    d = 1 + num * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    // Odd step.
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
    d = 1 + num * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < eps) break;
  }
  return h;
}
}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (!(a > 0 && b > 0) || std::isnan(x)) return kNaN;
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  // The fraction converges fast on the side of the mean; use symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return std::exp(log_front) * beta_fraction(a, b, x) / a;
  return 1 - std::exp(log_front) * beta_fraction(b, a, 1 - x) / b;
}

double student_t_cdf(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return kNaN;
  if (std::isinf(t)) return t > 0 ? 1 : 0;
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t > 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return kNaN;
  // Bracket, then bisect: the cdf is monotone, so this cannot fail.
  double lo = -1, hi = 1;
  while (student_t_cdf(lo, df) > p && lo > -1e300) lo *= 2;
  while (student_t_cdf(hi, df) < p && hi < 1e300) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 1e-12 * std::max(1.0, std::fabs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Interval t_mean_ci(double n, double mean, double sd, double level) {
  if (!(n >= 2) || !std::isfinite(mean) || !std::isfinite(sd)) return no_interval();
  const double half = student_t_quantile((1 + level) / 2, n - 1) * sd / std::sqrt(n);
  return {mean - half, mean + half};
}

TestResult mann_whitney_u(const std::vector<double>& a0, const std::vector<double>& b0) {
  TestResult r{"mann-whitney", kNaN, kNaN, kNaN, "rank-biserial r"};
  const std::vector<double> a = finite_only(a0), b = finite_only(b0);
  const size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return r;
  // Midranks of the pooled sample; tie groups feed the variance correction.
  std::vector<std::pair<double, int>> pooled;
  for (double x : a) pooled.push_back({x, 0});
  for (double x : b) pooled.push_back({x, 1});
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double midrank = 0.5 * static_cast<double>(i + 1 + j);
    const double t = static_cast<double>(j - i);
    if (t > 1) ties = true;
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) rank_sum_a += midrank;
    i = j;
  }
  const double N1 = static_cast<double>(n1), N2 = static_cast<double>(n2);
  const double u = rank_sum_a - N1 * (N1 + 1) / 2;
  r.statistic = u;
  r.effect = 2 * u / (N1 * N2) - 1;
  if (!ties && n1 <= 20 && n2 <= 20) {
    // Exact: count orderings by U with the recurrence
    // c(i, j, u) = c(i-1, j, u-j) + c(i, j-1, u) (the largest value is from a or b).
    const size_t umax = n1 * n2;
    std::vector<std::vector<double>> prev(n2 + 1), cur(n2 + 1);
    for (size_t j = 0; j <= n2; ++j) prev[j].assign(umax + 1, 0), prev[j][0] = 1;  // i = 0
    for (size_t i = 1; i <= n1; ++i) {
      for (size_t j = 0; j <= n2; ++j) {
        cur[j].assign(umax + 1, 0);
        for (size_t k = 0; k <= umax; ++k) {
          double c = (k >= j ? prev[j][k - j] : 0);
          if (j > 0) c += cur[j - 1][k];
          cur[j][k] = c;
        }
      }
      std::swap(prev, cur);
    }
    const std::vector<double>& counts = prev[n2];
    double total = 0, below = 0, above = 0;
    const size_t uk = static_cast<size_t>(std::llround(u));
    for (size_t k = 0; k <= umax; ++k) {
      total += counts[k];
      if (k <= uk) below += counts[k];
      if (k >= uk) above += counts[k];
    }
    r.p_value = std::min(1.0, 2 * std::min(below, above) / total);
    return r;
  }
  const double Nd = static_cast<double>(n);
  const double var = N1 * N2 / 12 * ((Nd + 1) - tie_term / (Nd * (Nd - 1)));
  if (!(var > 0)) {
    r.p_value = 1;  // every value equal
    return r;
  }
  const double dev = std::fabs(u - N1 * N2 / 2);
  const double z = std::max(0.0, dev - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, 2 * (1 - normal_cdf(z)));
  return r;
}

TestResult welch_t(double n1, double m1, double s1, double n2, double m2, double s2) {
  TestResult r{"welch", kNaN, kNaN, kNaN, "cohen d"};
  if (!(n1 >= 2 && n2 >= 2) || !std::isfinite(m1) || !std::isfinite(m2) || !std::isfinite(s1) || !std::isfinite(s2))
    return r;
  const double v1 = s1 * s1 / n1, v2 = s2 * s2 / n2;
  const double pooled = std::sqrt(((n1 - 1) * s1 * s1 + (n2 - 1) * s2 * s2) / (n1 + n2 - 2));
  if (v1 + v2 <= 0) {
    r.statistic = m1 == m2 ? 0 : (m1 > m2 ? INFINITY : -INFINITY);
    r.p_value = m1 == m2 ? 1 : 0;
    r.effect = m1 == m2 ? 0 : r.statistic;
    return r;
  }
  const double t = (m1 - m2) / std::sqrt(v1 + v2);
  const double df = (v1 + v2) * (v1 + v2) / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1));
  r.statistic = t;
  r.p_value = std::min(1.0, 2 * student_t_cdf(-std::fabs(t), df));
  r.effect = pooled > 0 ? (m1 - m2) / pooled : kNaN;
  return r;
}

TestResult welch_t(const std::vector<double>& a0, const std::vector<double>& b0) {
  const std::vector<double> a = finite_only(a0), b = finite_only(b0);
  return welch_t(static_cast<double>(a.size()), mean_of(a), sample_sd(a), static_cast<double>(b.size()), mean_of(b),
                 sample_sd(b));
}

}  // namespace milabench
