#include "report/report.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "report/export.hpp"
#include "report/html.hpp"
#include "report/marks.hpp"
#include "report/model_figures.hpp"
#include "report/summary.hpp"
#include "report/summary_check.hpp"
#include "report/summary_flags.hpp"
#include "results/atomic_write.hpp"
#include "results/input_checks.hpp"

namespace milabench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string cell(double v, int prec = 2) {
  if (std::isnan(v)) return "-";
  return fmt::format("{:.{}f}", v, prec);
}

// Loads an optional JSON object file; false (message on err) when bad.
bool load_object(const std::string& path, const char* what, json& out, std::ostream& err) {
  if (path.empty()) return true;
  try {
    out = read_json_file(path, kMaxInputFileBytes);
  } catch (const std::exception& e) {
    err << "error: " << what << " file " << e.what() << " (pass a valid JSON file)\n";
    return false;
  }
  if (!out.is_object()) {
    err << "error: " << what << " file " << path << ": expected a JSON object\n";
    return false;
  }
  return true;
}

std::string ci_cell(const ReportRow& r) {
  if (!r.ci.valid()) return r.ci_method.empty() ? "-" : r.ci_method;
  return fmt::format("[{}, {}] {}", cell(r.ci.lo), cell(r.ci.hi), r.ci_method);
}

// The --compare verdicts: is the difference real (Welch's t), does it
// matter (equivalence margin). docs/statistics.md §7-8.
void print_compare(const ReportData& d, std::ostream& out) {
  out << "\nsignificance against the baseline: is the difference real (two-sided test, alpha 0.05), and does it\n"
         "matter: beyond the margin when the diff's 95% CI lies outside +-margin, within when inside, else\n"
         "undecided (margin: --margin, else learned from the run-to-run noise)\n";
  const std::string head = fmt::format("{:<28} {:>7} {:>17} {:>7} {:<18} {:>9} {:<9}  {}", "test", "diff%",
                                       "diff% 95% CI", "margin%", "test used", "p", "matters", "verdict");
  out << head << "\n" << std::string(head.size() + 30, '-') << "\n";
  for (const auto& r : d.rows) {
    if (r.sig.method.empty()) continue;
    const std::string ci =
        r.diff_ci_pct.valid() ? "[" + cell(r.diff_ci_pct.lo, 1) + ", " + cell(r.diff_ci_pct.hi, 1) + "]" : "-";
    const std::string mark = compare_mark(r);
    out << fmt::format("{:<28} {:>7} {:>17} {:>7} {:<18} {:>9} {:<9}  {}{}\n", r.name, cell(r.diff_pct, 1), ci,
                       cell(r.noise_floor_pct, 1), r.sig.method, p_cell(r.sig.p_value),
                       r.matters.empty() ? "-" : r.matters, r.verdict.empty() ? "-" : r.verdict,
                       mark.empty() ? "" : "  [not comparable: " + mark + "]");
  }
  std::vector<std::string> sources;  // distinct, in row order
  for (const auto& r : d.rows)
    if (!r.margin_source.empty() && std::find(sources.begin(), sources.end(), r.margin_source) == sources.end())
      sources.push_back(r.margin_source);
  for (size_t i = 0; i < sources.size(); ++i) out << (i ? "; " : "margin from: ") << sources[i];
  if (!sources.empty()) out << "\n";
  for (const auto& r : d.rows)
    if (!compare_mark(r).empty())
      out << terminal_safe(fmt::format("NOT COMPARABLE WITH THE BASELINE: {} ({}): its ratio compares different work\n",
                                       r.name, compare_mark(r)));
}

// Steady state, fairness, significance and inventory sections.
void print_evidence(const ReportData& d, std::ostream& out) {
  out << "\nsteady state and fairness (warm-up median/max s; slice CI half-width %; run-to-run noise %;\n"
         "device means min/max and the worst copy's share of their mean)\n";
  std::string head = fmt::format("{:<28} {:>13} {:>8} {:>8} {:>8} {:>7} {:>12} {:>12} {:>12}", "test", "warmup_s",
                                 "unsteady", "u_stable", "slice%", "noise%", "dev_min", "dev_max", "worst_share");
  out << head << "\n" << std::string(head.size(), '-') << "\n";
  for (const auto& r : d.rows) {
    const std::string warm =
        std::isnan(r.warmup_median_s) ? "-" : cell(r.warmup_median_s, 1) + "/" + cell(r.warmup_max_s, 1);
    const std::string share = std::isnan(r.worst_share) ? "-" : cell(r.worst_share, 3) + " (" + r.worst_device + ")";
    out << fmt::format("{:<28} {:>13} {:>8} {:>8} {:>8} {:>7} {:>12} {:>12} {:>12}\n", r.name, warm, r.unsteady_runs,
                       r.until_stable_runs, cell(r.slice_ci_pct, 1), cell(r.noise_pct, 1), cell(r.dev_min),
                       cell(r.dev_max), share);
  }
  bool any_unsteady = false, any_until = false;
  for (const auto& r : d.rows) any_unsteady |= !r.unsteady.empty(), any_until |= !r.until_stable.empty();
  if (any_unsteady) {
    out << "\nruns not steady over the summary window (last 10 s minus the last second):\n";
    for (const auto& r : d.rows)
      for (const auto& u : r.unsteady) out << "  " << r.name << "  " << u << "\n";
  }
  if (any_until) {
    out << "\nruns that used --until-stable:\n";
    for (const auto& r : d.rows)
      for (const auto& u : r.until_stable) out << "  " << r.name << "  " << u << "\n";
  }
  if (!d.has_compare) return;
  print_compare(d, out);
  if (!d.inventory_diffs.empty()) {
    out << "\nWARNING: the two sides differ in what matters for a comparison:\n";
    for (const auto& line : d.inventory_diffs) out << "  " << line << "\n";
  }
}

}  // namespace

std::string p_cell(double p) {
  if (std::isnan(p)) return "-";
  if (p < 1e-4) return "<0.0001";
  return fmt::format("{:.4f}", p);
}

// Energy table, only for tests whose power was measured (GPU NVML or CPU RAPL).
static void print_energy(const ReportData& d, std::ostream& out) {
  bool any = false;
  for (const auto& r : d.rows) any = any || std::isfinite(r.examples_per_watt);
  if (!any) return;
  out << fmt::format("\n{:<28} {:>14} {:>14}\n", "energy (measured runs)", "J/example", "examples/W");
  for (const auto& r : d.rows)
    if (std::isfinite(r.examples_per_watt))
      out << fmt::format("{:<28} {:>14} {:>14}\n", r.name, cell(r.joules_per_example, 4), cell(r.examples_per_watt, 3));
}

// The first lines of a report on a partial suite: how many weighted tests it covers.
static std::string coverage_text(const ReportData& d) {
  if (d.covered_tests >= d.weighted_tests) return "";
  std::string missing;
  for (std::size_t i = 0; i < d.missing_tests.size() && i < 8; ++i) missing += (i ? ", " : "") + d.missing_tests[i];
  if (d.missing_tests.size() > 8) missing += fmt::format(", ... ({} more)", d.missing_tests.size() - 8);
  return fmt::format(
      "PARTIAL SUITE: {} of {} weighted tests have a result (missing: {}).\n"
      "The score follows the original's rule: a missing test keeps its weight and adds nothing, so it is not "
      "comparable to a full suite's score{}.\n\n",
      d.covered_tests, d.weighted_tests, terminal_safe(missing),
      d.has_compare ? "; compare with the ratio over the tests both sides have" : "");
}

void print_report(const ReportData& d, std::ostream& out) {
  if (!d.title.empty()) out << terminal_safe(d.title) << "\n\n";
  out << coverage_text(d);
  for (const auto& line : d.result_flags) out << line << "\n";
  for (const auto& line : fidelity_lines(d)) out << terminal_safe(line) << "\n";
  std::string head = fmt::format("{:<28} {:>6} {:>5} {:>5} {:>12} {:>7} {:>12}", "test", "weight", "n", "fail", "perf",
                                 "std%", "perf_adj");
  if (d.has_compare)
    head += fmt::format(" {:>12} {:>10} {:>13} {:>14}", "perf_base", "perf_ratio", "perf_base_adj", "perf_ratio_adj");
  head += "  perf 95% CI";
  out << head << "\n" << std::string(head.size(), '-') << "\n";
  for (const auto& r : d.rows) {
    out << fmt::format("{:<28} {:>6} {:>5} {:>5} {:>12} {:>7} {:>12}", terminal_safe(r.name), cell(r.weight, 0),
                       cell(r.n, 0), cell(r.fail, 0), cell(r.perf), cell(r.std_pct, 1), cell(r.perf_adj));
    if (d.has_compare)
      out << fmt::format(" {:>12} {:>10} {:>13} {:>14}", cell(r.perf_base), cell(r.perf_ratio, 3),
                         cell(r.perf_base_adj), cell(r.perf_ratio_adj, 3));
    out << "  " << ci_cell(r);
    if (!row_marks(r).empty()) out << "  " << terminal_safe(row_marks(r));
    out << "\n";
  }
  print_energy(d, out);
  print_model_figures(d, out);
  out << "\n";
  // The scores block as report.py's Table: "Label:" padded to the longest label + 2.
  std::vector<std::pair<std::string, std::string>> scores;
  const std::string kinds = failure_kinds_text(d);
  scores.push_back({"Failure rate", fmt::format("{:>9}% ({}) ({}/{}){}", cell(d.failure_rate * 100),
                                                d.failure_pass ? "PASS" : "FAIL", cell(d.total_fail, 0),
                                                cell(d.total_n, 0), kinds.empty() ? "" : "  by kind: " + kinds)});
  auto why = [](const std::string& w) { return w.empty() ? std::string() : "  (" + terminal_safe(w) + ")"; };
  scores.push_back({"Score", fmt::format("{:>10}{}", cell(d.score), why(d.score_zero_why))});
  if (d.score_ci.valid())
    scores.push_back(
        {"score 95% CI", fmt::format("[{}, {}] ({})", cell(d.score_ci.lo), cell(d.score_ci.hi), d.score_ci_note)});
  else if (!d.score_ci_note.empty())
    scores.push_back({"score 95% CI", d.score_ci_note});
  if (d.has_compare) {
    scores.push_back({"Score (baseline)", fmt::format("{:>10}{}", cell(d.base_score), why(d.base_score_zero_why))});
    scores.push_back({"Ratio", fmt::format("{:>10}", cell(d.score_ratio))});
    if (d.covered_tests < d.weighted_tests)
      scores.push_back({"common ratio", fmt::format("{:>10}  (over the {} weighted test(s) both sides have: score {} / "
                                                    "baseline {})",
                                                    cell(d.common_ratio, 3), d.common_tests, cell(d.common_score),
                                                    cell(d.common_base_score))});
  }
  if (d.price > 0) {
    scores.push_back({"Price ($)", fmt::format("{:>10}", cell(d.price))});
    scores.push_back({"RPP (Price / Score)", fmt::format("{:>10}", cell(d.price / d.score))});
  }
  size_t width = 0;
  for (const auto& [k, v] : scores) width = std::max(width, k.size() + 2);
  // The original's rule counts a test without a result as perf 1: the line under the score says which way each moved
  // it.
  const std::string moved = missing_effect_text(d);
  for (const auto& [k, v] : scores) {
    out << fmt::format("{:<{}} {}\n", k + ":", width, v);
    if (k == "Score" && !moved.empty())
      out << fmt::format(
          "{:<{}} moved by test(s) without a result, each counted as perf 1 (the original's rule): "
          "{}\n",
          "", width, terminal_safe(moved));
  }
  if (!d.gpus.empty()) {
    out << "\nper-GPU perf relative to the best device\n";
    for (const auto& g : d.gpus) {
      out << fmt::format("{} ({})\n", g.test, g.stat);
      for (const auto& [dev, v] : g.devices) out << fmt::format("  {:>6} {:>8}\n", dev, cell(v, 3));
    }
  }
  print_evidence(d, out);
  print_window_flags(d, out);
}

namespace {

using SeriesByTest = std::map<std::string, std::vector<RateSeries>>;

// The report's input: a results folder (summarised here, with its rate
// series) or a summary file. False after one "error:" line on `err`.
bool load_report_input(const ReportOptions& opts, json& summary, SeriesByTest& series, bool& is_dir,
                       std::ostream& err) {
  std::error_code ec;
  if (opts.input.empty() || !fs::exists(opts.input, ec)) {
    err << "error: input " << opts.input << ": not found (pass a results directory or a summary JSON file)\n";
    return false;
  }
  is_dir = fs::is_directory(opts.input, ec);
  if (!is_dir) return load_object(opts.input, "summary", summary, err);
  std::vector<std::string> warnings;
  try {
    summary = summarize_directory(opts.input, warnings);
    std::vector<std::string> ignored;  // same files, already warned about
    series = collect_rate_series(opts.input, ignored);
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return false;
  }
  for (const auto& w : warnings) err << w << "\n";
  if (summary.empty())
    err << "warning: " << opts.input << ": no counted result files (run milarun run with --job-id)\n";
  return true;
}

// --csv, --markdown and --html. 0, or 1 after one "error:" line.
int write_report_files(const ReportOptions& opts, const ReportData& d, const SeriesByTest* series, std::ostream& err) {
  for (const auto& [path, text] :
       {std::make_pair(opts.csv, table_csv(d)), std::make_pair(opts.markdown, table_markdown(d))}) {
    if (path.empty()) continue;
    try {
      write_output_file(path, text);
    } catch (const std::exception& e) {
      err << "error: export " << e.what() << "\n";
      return 1;
    }
  }
  if (!opts.html.empty()) {
    try {
      write_output_file(opts.html, render_html(d, series));
    } catch (const std::exception& e) {
      err << "error: html " << e.what() << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace

int run_report(const ReportOptions& opts, std::ostream& out, std::ostream& err) {
  if (opts.price < 0 || !std::isfinite(opts.price) || (opts.price_given && !(opts.price > 0)) || opts.price > 1e12) {
    err << "error: --price must be a positive number of dollars, at most 1e12\n";
    return 2;
  }
  json summary;
  SeriesByTest series;
  bool is_dir = false;
  if (!load_report_input(opts, summary, series, is_dir, err)) return 2;
  if ((opts.margin_given || !std::isnan(opts.margin_pct)) && !(opts.margin_pct >= 0 && opts.margin_pct < 100)) {
    err << "error: --margin must be a percentage in [0, 100) (e.g. --margin 3)\n";
    return 2;
  }
  json weights, baseline;
  if (!load_object(opts.weights, "weights", weights, err)) return 2;
  if (!opts.compare_summary.is_null())
    baseline = opts.compare_summary;
  else if (!load_object(opts.compare, "compare", baseline, err))
    return 2;
  for (const std::string& problem : {is_dir ? std::string() : summary_problem(summary, opts.input),
                                     opts.weights.empty() ? std::string() : weights_problem(weights, opts.weights),
                                     opts.compare.empty() ? std::string() : summary_problem(baseline, opts.compare)})
    if (!problem.empty()) {
      err << "error: " << problem << "\n";
      return 2;
    }
  ReportData d;
  try {
    d = build_report(summary, weights, baseline, opts.price, opts.compare_gpus, opts.title, opts.margin_pct);
  } catch (const std::exception& e) {
    err << "error: " << opts.input << ": " << e.what() << "\n";
    return 2;
  }
  if (is_dir) attach_runs(d, series);  // units, summary-window flags, context (run_series.hpp)
  for (const auto& t : opts.trends)
    if (std::any_of(d.rows.begin(), d.rows.end(), [&](const ReportRow& r) { return r.name == t.test; }))
      d.trends.push_back(t);
  print_report(d, out);
  if (!d.inventory_diffs.empty())
    err << "warning: --compare " << (opts.compare_label.empty() ? opts.compare : opts.compare_label) << ": "
        << d.inventory_diffs.size()
        << " inventory difference(s), listed at the end of the report (compare like with like)\n";
  return write_report_files(opts, d, is_dir ? &series : nullptr, err);
}

int run_summary(const std::string& outdir, const std::string& out_file, std::ostream& out, std::ostream& err) {
  std::vector<std::string> warnings;
  json summary;
  try {
    summary = summarize_directory(outdir, warnings);
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  for (const auto& w : warnings) err << w << "\n";
  const std::string text = summary.dump(4) + "\n";
  if (out_file.empty()) {
    out << text;
    return 0;
  }
  try {
    write_output_file(out_file, text);
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace milabench
