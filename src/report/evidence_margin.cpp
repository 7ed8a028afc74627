// The equivalence margin of --compare, learned from run-to-run noise
// (docs/statistics.md §7): the median absolute pairwise difference of
// repeats on a device, pooled over both sides, over tests when one test has
// too few runs, with a floor and a "guess" label below kMinRunsForMargin.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "measure/stats_intervals.hpp"
#include "report/evidence.hpp"
#include "report/evidence_json.hpp"

namespace milabench {
using nlohmann::json;
using namespace evidence_json;

namespace {

// 1.4826 * median |x|: the sd of normal deviations.
double mad_of_deviations(const std::vector<double>& dev) {
  std::vector<double> abs_dev;
  for (double x : dev) abs_dev.push_back(std::fabs(x));
  return 1.4826 * median_of(abs_dev);
}
}  // namespace

namespace {
// (x_i - x_j) / (√2 level) for every pair of v: each is distributed as one
// run's deviation from the true level (sd σ/level for normal noise)
// whatever the group's size, where deviations from a small group's own
// median are biased low (one of 3 is always 0).
void add_pairs(const std::vector<double>& v, double level, std::vector<double>& out) {
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = i + 1; j < v.size(); ++j) out.push_back((v[i] - v[j]) / (std::sqrt(2.0) * level));
}
}  // namespace

NoiseDeviations noise_deviations(const json& entry) {
  std::map<std::string, std::vector<double>> by_device;
  std::vector<double> all;
  for (const auto& [dev, p] : device_runs(entry)) {
    by_device[dev].push_back(p);
    all.push_back(p);
  }
  NoiseDeviations out;
  const double level = median_of(all);
  if (!(level > 0)) return out;
  for (const auto& [d, v] : by_device) {
    if (v.size() < 2) continue;
    add_pairs(v, level, out.rel);
    out.runs += v.size();
  }
  if (out.runs >= 2) {
    out.repeats = true;
    return out;
  }
  out = {};
  if (all.size() < 2) return out;
  add_pairs(all, level, out.rel);  // no repeats: across copies
  out.runs = all.size();
  return out;
}

RobustNoise robust_noise(const json& entry) {
  const NoiseDeviations d = noise_deviations(entry);
  if (d.runs >= 2) return {mad_of_deviations(d.rel), d.repeats ? "MAD of repeats" : "MAD across copies"};
  const double sd = noise_fraction(entry);
  if (std::isfinite(sd)) return {sd, "sd of repeats (no per-run values)"};
  return {kNaN, ""};
}

NoiseDeviations suite_noise_deviations(const json& summary, const json& baseline) {
  NoiseDeviations pool;
  pool.repeats = true;
  for (const json* s : {&summary, &baseline}) {
    if (!s->is_object()) continue;
    for (const auto& [name, entry] : s->items()) {
      const NoiseDeviations d = noise_deviations(entry);
      pool.rel.insert(pool.rel.end(), d.rel.begin(), d.rel.end());
      pool.runs += d.runs;
      pool.repeats = pool.repeats && (d.runs == 0 || d.repeats);
    }
  }
  return pool;
}

Margin learned_margin(const json& entry, const json& base, const NoiseDeviations& suite) {
  const NoiseDeviations a = noise_deviations(entry), b = noise_deviations(base);
  std::vector<double> test = a.rel;
  test.insert(test.end(), b.rel.begin(), b.rel.end());
  const size_t runs = a.runs + b.runs;
  const bool repeats = (a.runs == 0 || a.repeats) && (b.runs == 0 || b.repeats);
  Margin m;
  if (runs < kMinRunsForMargin && suite.runs > runs) {
    m = {mad_of_deviations(suite.rel) * 100, static_cast<double>(suite.runs), "MAD pooled over tests"};
  } else if (runs >= 2) {
    m = {mad_of_deviations(test) * 100, static_cast<double>(runs), repeats ? "MAD of repeats" : "MAD across copies"};
  } else {
    // No per-run values (the original's baselines): the larger side's repeat sd.
    const double na = noise_fraction(entry), nb = noise_fraction(base);
    const bool use_a = std::isfinite(na) && !(nb > na);
    m = {(use_a ? na : nb) * 100, num(sub(use_a ? entry : base, "train"), "n"), "sd of repeats (no per-run values)"};
    if (!std::isfinite(m.pct)) return {kNaN, kNaN, ""};
  }
  if (m.pct < kMarginFloorPct) {
    m.pct = kMarginFloorPct;
    m.source += fmt::format(", raised to the {:.0f}% floor", kMarginFloorPct);
  }
  if (!(m.runs >= static_cast<double>(kMinRunsForMargin)))
    m.source += fmt::format(" (a guess: {} runs; pass --margin)",
                            std::isfinite(m.runs) ? fmt::format("{:.0f}", m.runs) : "unknown");
  return m;
}

}  // namespace milabench
