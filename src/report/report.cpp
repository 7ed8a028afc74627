#include "report/report.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "report/export.hpp"
#include "report/html.hpp"
#include "report/summary.hpp"
#include "results/atomic_write.hpp"

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
    out = read_json_file(path);
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
  if (!r.ci.valid()) return "-";
  return fmt::format("[{}, {}] {}", cell(r.ci.lo), cell(r.ci.hi), r.ci_method);
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
  out << "\nsignificance against the baseline (two-sided, alpha 0.05; a difference under the noise "
         "floor is \"same\")\n";
  head = fmt::format("{:<28} {:>8} {:>8} {:<13} {:>9} {:>22} {}", "test", "diff%", "floor%", "method", "p", "effect",
                     "verdict");
  out << head << "\n" << std::string(head.size() + 8, '-') << "\n";
  for (const auto& r : d.rows) {
    if (r.sig.method.empty()) continue;
    const std::string eff = std::isnan(r.sig.effect) ? "-" : r.sig.effect_name + " " + cell(r.sig.effect, 2);
    out << fmt::format("{:<28} {:>8} {:>8} {:<13} {:>9} {:>22} {}\n", r.name, cell(r.diff_pct, 1),
                       cell(r.noise_floor_pct, 1), r.sig.method, p_cell(r.sig.p_value), eff,
                       r.verdict.empty() ? "-" : r.verdict);
  }
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

void print_report(const ReportData& d, std::ostream& out) {
  if (!d.title.empty()) out << d.title << "\n\n";
  std::string head = fmt::format("{:<28} {:>6} {:>5} {:>5} {:>12} {:>7} {:>12}", "test", "weight", "n", "fail", "perf",
                                 "std%", "perf_adj");
  if (d.has_compare)
    head += fmt::format(" {:>12} {:>10} {:>13} {:>14}", "perf_base", "perf_ratio", "perf_base_adj", "perf_ratio_adj");
  head += "  perf 95% CI";
  out << head << "\n" << std::string(head.size(), '-') << "\n";
  for (const auto& r : d.rows) {
    out << fmt::format("{:<28} {:>6} {:>5} {:>5} {:>12} {:>7} {:>12}", r.name, cell(r.weight, 0), cell(r.n, 0),
                       cell(r.fail, 0), cell(r.perf), cell(r.std_pct, 1), cell(r.perf_adj));
    if (d.has_compare)
      out << fmt::format(" {:>12} {:>10} {:>13} {:>14}", cell(r.perf_base), cell(r.perf_ratio, 3),
                         cell(r.perf_base_adj), cell(r.perf_ratio_adj, 3));
    out << "  " << ci_cell(r);
    out << "\n";
  }
  print_energy(d, out);
  out << "\n";
  // The scores block as report.py's Table: "Label:" padded to the longest label + 2.
  std::vector<std::pair<std::string, std::string>> scores;
  const std::string kinds = failure_kinds_text(d);
  scores.push_back({"Failure rate", fmt::format("{:>9}% ({}) ({}/{}){}", cell(d.failure_rate * 100),
                                                d.failure_pass ? "PASS" : "FAIL", cell(d.total_fail, 0),
                                                cell(d.total_n, 0), kinds.empty() ? "" : "  by kind: " + kinds)});
  scores.push_back({"Score", fmt::format("{:>10}", cell(d.score))});
  if (d.score_ci.valid())
    scores.push_back(
        {"score 95% CI",
         fmt::format("[{}, {}] (bootstrap over runs, weights fixed{})", cell(d.score_ci.lo), cell(d.score_ci.hi),
                     d.score_ci_parametric ? "; normal draws for tests without per-run values" : "")});
  if (d.has_compare) {
    scores.push_back({"Score (baseline)", fmt::format("{:>10}", cell(d.base_score))});
    scores.push_back({"Ratio", fmt::format("{:>10}", cell(d.score_ratio))});
  }
  if (d.price > 0) {
    scores.push_back({"Price ($)", fmt::format("{:>10}", cell(d.price))});
    scores.push_back({"RPP (Price / Score)", fmt::format("{:>10}", cell(d.price / d.score))});
  }
  size_t width = 0;
  for (const auto& [k, v] : scores) width = std::max(width, k.size() + 2);
  for (const auto& [k, v] : scores) out << fmt::format("{:<{}} {}\n", k + ":", width, v);
  if (!d.gpus.empty()) {
    out << "\nper-GPU perf relative to the best device\n";
    for (const auto& g : d.gpus) {
      out << fmt::format("{} ({})\n", g.test, g.stat);
      for (const auto& [dev, v] : g.devices) out << fmt::format("  {:>6} {:>8}\n", dev, cell(v, 3));
    }
  }
  print_evidence(d, out);
}

int run_report(const ReportOptions& opts, std::ostream& out, std::ostream& err) {
  if (opts.price < 0 || !std::isfinite(opts.price)) {
    err << "error: --price must be a positive number of dollars\n";
    return 2;
  }
  std::error_code ec;
  if (opts.input.empty() || !fs::exists(opts.input, ec)) {
    err << "error: input " << opts.input << ": not found (pass a results directory or a summary JSON file)\n";
    return 2;
  }
  json summary;
  std::map<std::string, std::vector<RateSeries>> series;
  const bool is_dir = fs::is_directory(opts.input, ec);
  if (is_dir) {
    std::vector<std::string> warnings;
    try {
      summary = summarize_directory(opts.input, warnings);
      if (!opts.html.empty()) {
        std::vector<std::string> ignored;  // same files, already warned about
        series = collect_rate_series(opts.input, ignored);
      }
    } catch (const std::exception& e) {
      err << "error: " << e.what() << "\n";
      return 2;
    }
    for (const auto& w : warnings) err << w << "\n";
    if (summary.empty())
      err << "warning: " << opts.input << ": no counted result files (run milarun run with --job-id)\n";
  } else if (!load_object(opts.input, "summary", summary, err)) {
    return 2;
  }
  json weights, baseline;
  if (!load_object(opts.weights, "weights", weights, err)) return 2;
  if (!load_object(opts.compare, "compare", baseline, err)) return 2;
  ReportData d;
  try {
    d = build_report(summary, weights, baseline, opts.price, opts.compare_gpus, opts.title);
  } catch (const std::exception& e) {
    err << "error: " << opts.input << ": " << e.what() << "\n";
    return 2;
  }
  print_report(d, out);
  if (!d.inventory_diffs.empty())
    err << "warning: --compare " << opts.compare << ": " << d.inventory_diffs.size()
        << " inventory difference(s), listed at the end of the report (compare like with like)\n";
  for (const auto& [path, text] :
       {std::make_pair(opts.csv, table_csv(d)), std::make_pair(opts.markdown, table_markdown(d))}) {
    if (path.empty()) continue;
    try {
      write_text_atomic(path, text);
    } catch (const std::exception& e) {
      err << "error: export " << e.what() << "\n";
      return 1;
    }
  }
  if (!opts.html.empty()) {
    try {
      write_text_atomic(opts.html, render_html(d, is_dir ? &series : nullptr));
    } catch (const std::exception& e) {
      err << "error: html " << e.what() << "\n";
      return 1;
    }
  }
  return 0;
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
    write_text_atomic(out_file, text);
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace milabench
