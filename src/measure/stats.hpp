// Statistics for trustworthy numbers: a seeded generator, two-sample tests
// (Mann-Whitney U, Welch's t) and the distributions they need. Intervals are
// in stats_intervals.hpp.
// Torch-free, deterministic: the same input and seed give the same interval
// on every platform (own RNG, no std::*_distribution). docs/statistics.md
// explains each method in plain words.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace milabench {

// The value of a statistic that cannot be computed (too few samples, a zero
// mean): NaN, which every reader prints as missing.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The finite values of v, in order (NaN and infinities dropped).
std::vector<double> finite_only(const std::vector<double>& v);

// Seed of every randomised report number (the score interval), so reports are reproducible.
constexpr uint64_t kStatsSeed = 20200101;

// splitmix64: small, fast, portable; good enough for simulation draws.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform integer in [0, n) without modulo bias; n > 0.
  uint64_t below(uint64_t n);
  // Uniform double in [0, 1).
  double uniform();
  // Standard normal (Box-Muller).
  double normal();

 private:
  uint64_t state_;
};

// Closed interval; both ends NaN when it cannot be computed.
struct Interval {
  double lo, hi;
  bool valid() const;
};
Interval no_interval();

double mean_of(const std::vector<double>& v);    // NaN when empty
double sample_sd(const std::vector<double>& v);  // ddof = 1; NaN when n < 2
double median_of(std::vector<double> v);         // NaN when empty
// Quantile q in [0,1] of sorted `v` with linear interpolation (numpy's default).
double quantile_sorted(const std::vector<double>& sorted, double q);

// Distribution functions.
double normal_cdf(double z);
double student_t_cdf(double t, double df);       // df > 0
double student_t_quantile(double p, double df);  // p in (0,1)
// Regularized incomplete beta I_x(a, b), a, b > 0, x in [0, 1].
double incomplete_beta(double a, double b, double x);

// Interval of a mean from summary numbers only: mean ± t(level, n-1) * sd/sqrt(n),
// sd being the sample sd. Invalid when n < 2.
Interval t_mean_ci(double n, double mean, double sample_sd, double level = 0.95);

// Result of a two-sided, two-sample test of "a and b come from the same
// distribution" (Mann-Whitney) or "have the same mean" (Welch).
struct TestResult {
  std::string method;       // "mann-whitney" or "welch"
  double statistic = 0;     // U of a, or t
  double p_value = 1;       // two-sided; NaN when the test cannot run
  double effect = 0;        // rank-biserial r in [-1,1] (a > b positive), or Cohen's d
  std::string effect_name;  // "rank-biserial r" or "cohen d"
};

// Mann-Whitney U with midranks for ties. Exact p (permutation distribution)
// when both samples have <= 20 values and no ties, else the normal
// approximation with tie and continuity correction. p NaN when a or b is empty.
TestResult mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

// Welch's unequal-variance t test from summary numbers (sd = sample sd).
// p NaN when n < 2 on either side; zero spread on both sides gives p 1 for
// equal means and 0 otherwise.
TestResult welch_t(double n1, double mean1, double sd1, double n2, double mean2, double sd2);
TestResult welch_t(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace milabench
