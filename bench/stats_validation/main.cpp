// stats_validation: the coverage / power table of docs/statistics.md
// ("Validation"), measured by seeded simulations of the report's own code.
//   stats_validation            full size (the documented table, ~1 min)
//   stats_validation --quick    fewer trials (seconds; ctest runs it)
//   --check                     exit 1 when a figure lies outside its band
// Deterministic: the same arguments print the same table.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sims.hpp"

using namespace milabench::validation;

namespace {

struct Figure {
  std::string what;
  double value, lo, hi;  // band [lo, hi], fractions
  bool ok() const { return value >= lo && value <= hi; }
};

void print(const Figure& f) {
  std::printf("%-58s %6.1f%%   band %5.1f-%5.1f%%  %s\n", f.what.c_str(), 100 * f.value, 100 * f.lo, 100 * f.hi,
              f.ok() ? "ok" : "OUTSIDE");
  std::fflush(stdout);
}

struct Sizes {
  int per_test, score, window, verdict;
};

std::vector<Figure> intervals(const Sizes& z, bool quick) {
  std::vector<Figure> out;
  const double slack = quick ? 0.01 : 0;  // fewer trials: ±1% more sampling noise
  for (Shape s : {Shape::normal, Shape::laplace, Shape::t3})
    for (size_t n : {2, 3, 10, 30})
      out.push_back({std::string("per-test interval, ") + shape_name(s) + ", " + std::to_string(n) + " runs",
                     per_test_coverage(s, n, z.per_test, 1000 + n), 0.93 - slack, 0.97 + slack});
  for (Shape s : {Shape::normal, Shape::t3})
    for (size_t n : {3, 10, 30}) {
      const bool t3 = s == Shape::t3 && n >= 10;  // the stated shortfall (docs/statistics.md §3)
      double inside = 0;
      const double c = score_coverage(s, n, z.score, 99 + n, &inside);
      const std::string what = std::string(", ") + shape_name(s) + ", " + std::to_string(n) + " runs a test";
      out.push_back({"score interval" + what, c, (t3 ? 0.85 : 0.915) - 2 * slack, 0.98 + 2 * slack});
      out.push_back({"  printed score inside the interval" + what, inside, 0.98, 1});
    }
  // Within a run: at φ 0.8, 18 slices are too few to estimate φ (stated beside slice%).
  for (double phi : {0.0, 0.5, 0.8})
    out.push_back({"slice interval, 18 slices, phi " + std::to_string(phi).substr(0, 3),
                   slice_coverage(phi, z.per_test, 7), (phi <= 0.5 ? 0.92 : 0.88) - slack, 0.98 + slack});
  return out;
}

std::vector<Figure> windows(const Sizes& z, bool quick) {
  std::vector<Figure> out;
  const double slack = quick ? 0.015 : 0;
  for (int slices : {40, 60})
    for (double phi : {0.0, 0.5, 0.8})
      out.push_back({"flat run flagged unsteady, phi " + std::to_string(phi).substr(0, 3) + ", " +
                         std::to_string(slices / 2) + " s",
                     unsteady_rate(phi, slices, 0, z.window, 3), 0, 0.05 + slack});
  for (int slices : {60, 120})
    for (bool step : {true, false}) {
      const std::string what = std::string("run with a warm-up (") + (step ? "step" : "exponential") +
                               ") flagged, phi 0.8, " + std::to_string(slices / 2) + " s";
      out.push_back({what, warmup_flag_rate(0.8, slices, step, z.window, 5), 0, 0.05 + slack});
      // Why SteadyOptions::trend_guard exists (not a check).
      std::printf("%-58s %6.1f%%\n", ("  (without the trend guard: " + what.substr(4) + ")").c_str(),
                  100 * warmup_flag_rate(0.8, slices, step, z.window, 5, 0));
    }
  // A +10% per 10 s trend: lowest power stated in docs/statistics.md §4.
  const double floor[3][3] = {{0.95, 0.95, 0.99}, {0.85, 0.95, 0.93}, {0.45, 0.60, 0.65}};  // [phi][length]
  const double phis[] = {0.0, 0.5, 0.8};
  const int lengths[] = {40, 60, 120};
  for (int p = 0; p < 3; ++p)
    for (int l = 0; l < 3; ++l) {
      double span = 0;
      const double rate = unsteady_rate(phis[p], lengths[l], 0.10, z.window, 4, &span);
      char what[96];
      std::snprintf(what, sizeof what, "+10%%/10 s trend flagged, phi %.1f, %d s (span %.0f slices)", phis[p],
                    lengths[l] / 2, span);
      out.push_back({what, rate, floor[p][l] - slack, 1});
    }
  return out;
}

// The window rule's rising check (docs/statistics.md §4, "The window rule"):
// what it costs on flat runs and what it removes on a slow approach. Runs
// meet their count at 12 s (24 slices), as a fast GPU run of the original's
// counts does.
std::vector<Figure> window_rule(const Sizes& z, bool quick) {
  std::vector<Figure> out;
  const double slack = quick ? 0.02 : 0;
  for (double approach : {0.0, 0.3})
    for (double phi : {0.0, 0.5, 0.8}) {
      const WindowRuleEffect e = window_rule_effect(phi, approach, 24, z.window / 4, 21);
      char head[96];
      std::snprintf(head, sizeof head, "%s, phi %.1f", approach > 0 ? "approach from 70% (8 s)" : "flat run", phi);
      std::printf(
          "window rule, %-30s extended %5.1f%% (warm-up only %5.1f%%), mean +%.1f s (%.1f s), window error "
          "%.2f%% (%.2f%%)\n",
          head, 100 * e.extended, 100 * e.extended_warm_only, e.mean_s, e.mean_s_warm_only, 100 * e.error,
          100 * e.error_warm_only);
      std::fflush(stdout);
      if (approach == 0)  // a flat run has nothing to wait for: every extension is a false one
        out.push_back({std::string("  flat run extended by the window rule, phi ") + std::to_string(phi).substr(0, 3),
                       e.extended, 0, 0.06 + slack});
      else  // the rule's point: a window nearer the level it approaches than a stop at the count
        out.push_back(
            {std::string("  approach: window error with the rule / without, phi ") + std::to_string(phi).substr(0, 3),
             e.error / e.error_warm_only, 0, (phi < 0.7 ? 0.7 : 0.9) + slack});
    }
  return out;
}

std::vector<Figure> verdicts(const Sizes& z, bool quick) {
  std::vector<Figure> out;
  const double slack = quick ? 0.02 : 0;
  for (double margin : {5.0, static_cast<double>(NAN)})
    for (double diff : {0.0, 0.03, 0.08})
      for (size_t n : {3, 10}) {
        const VerdictRates v = verdict_rates(diff, n, margin, z.verdict, 77 + n);
        char head[96];
        std::snprintf(head, sizeof head, "true %.0f%%, %zu runs a side, margin %s", diff * 100, n,
                      std::isnan(margin) ? "learned" : "5%");
        std::printf(
            "verdict %-44s beyond %5.1f%% within %5.1f%% undecided %5.1f%% | significant %5.1f%% | "
            "margin %.1f%% (10-90%%: %.1f-%.1f%%)%s\n",
            head, 100 * v.beyond, 100 * v.within, 100 * v.undecided, 100 * v.significant, v.margin_median, v.margin_p10,
            v.margin_p90, v.guess > 0 ? " a guess" : "");
        // The learned margin of a 5% noise: issue 29 measured 2-11% (10th-90th percentile) at 3 runs.
        if (std::isnan(margin) && diff == 0) {
          out.push_back({std::string("  learned margin, 10th percentile: ") + head, v.margin_p10 / 100, 0.035, 0.05});
          out.push_back({std::string("  learned margin, 90th percentile: ") + head, v.margin_p90 / 100, 0.05, 0.07});
        }
        // Wrong calls: "beyond" for a difference inside the margin, "within" for one outside it.
        if (diff * 100 < 5) out.push_back({std::string("  wrong 'beyond': ") + head, v.beyond, 0, 0.05 + slack});
        if (diff * 100 > 5) out.push_back({std::string("  wrong 'within': ") + head, v.within, 0, 0.05 + slack});
      }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, check = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else if (!std::strcmp(argv[i], "--check"))
      check = true;
    else {
      std::fprintf(stderr, "error: unknown argument %s (use --quick and/or --check)\n", argv[i]);
      return 2;
    }
  }
  const Sizes z = quick ? Sizes{1000, 150, 400, 200} : Sizes{4000, 500, 2000, 1000};
  std::printf("stats_validation%s: trials per cell: per-test %d, score %d, window %d, verdict %d\n",
              quick ? " --quick" : "", z.per_test, z.score, z.window, z.verdict);
  int outside = 0;
  for (auto part : {intervals, windows, window_rule, verdicts})
    for (const Figure& f : part(z, quick)) {
      print(f);
      outside += !f.ok();
    }
  std::printf("%d figure%s outside %s band\n", outside, outside == 1 ? "" : "s", outside == 1 ? "its" : "their");
  return check && outside > 0 ? 1 : 0;
}
