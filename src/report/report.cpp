#include "report/report.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <unistd.h>

#include "report/html.hpp"
#include "report/summary.hpp"

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

}  // namespace

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error(path + ": cannot write (check the folder exists and is writable)");
    f << text;
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw std::runtime_error(path + ": write failed");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename into place (" + ec.message() + ")");
  }
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
  std::string head = fmt::format("{:<28} {:>6} {:>5} {:>5} {:>12} {:>7} {:>12}", "test", "weight",
                                 "n", "fail", "perf", "std%", "perf_adj");
  if (d.has_compare)
    head += fmt::format(" {:>12} {:>10} {:>13} {:>14}", "perf_base", "perf_ratio", "perf_base_adj",
                        "perf_ratio_adj");
  out << head << "\n" << std::string(head.size(), '-') << "\n";
  for (const auto& r : d.rows) {
    out << fmt::format("{:<28} {:>6} {:>5} {:>5} {:>12} {:>7} {:>12}", r.name, cell(r.weight, 0),
                       cell(r.n, 0), cell(r.fail, 0), cell(r.perf), cell(r.std_pct, 1),
                       cell(r.perf_adj));
    if (d.has_compare)
      out << fmt::format(" {:>12} {:>10} {:>13} {:>14}", cell(r.perf_base), cell(r.perf_ratio, 3),
                         cell(r.perf_base_adj), cell(r.perf_ratio_adj, 3));
    out << "\n";
  }
  print_energy(d, out);
  out << "\n";
  out << fmt::format("{:<20} {:>10}% ({}/{}) {}\n", "failure rate", cell(d.failure_rate * 100),
                     cell(d.total_fail, 0), cell(d.total_n, 0), d.failure_pass ? "PASS" : "FAIL");
  out << fmt::format("{:<20} {:>10}\n", "score", cell(d.score));
  if (d.has_compare) {
    out << fmt::format("{:<20} {:>10}\n", "baseline score", cell(d.base_score));
    out << fmt::format("{:<20} {:>10}\n", "score ratio", cell(d.score_ratio, 3));
  }
  if (d.price > 0) {
    out << fmt::format("{:<20} {:>10}\n", "price ($)", cell(d.price));
    out << fmt::format("{:<20} {:>10}\n", "price/score", cell(d.price / d.score, 4));
  }
  if (!d.gpus.empty()) {
    out << "\nper-GPU perf relative to the best device\n";
    for (const auto& g : d.gpus) {
      out << fmt::format("{} ({})\n", g.test, g.stat);
      for (const auto& [dev, v] : g.devices) out << fmt::format("  {:>6} {:>8}\n", dev, cell(v, 3));
    }
  }
}

int run_report(const ReportOptions& opts, std::ostream& out, std::ostream& err) {
  if (opts.price < 0 || std::isnan(opts.price)) {
    err << "error: --price must be a positive number of dollars\n";
    return 2;
  }
  std::error_code ec;
  if (opts.input.empty() || !fs::exists(opts.input, ec)) {
    err << "error: input " << opts.input
        << ": not found (pass a results directory or a summary JSON file)\n";
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
  if (!opts.html.empty()) {
    try {
      write_file_atomic(opts.html, render_html(d, is_dir ? &series : nullptr));
    } catch (const std::exception& e) {
      err << "error: html " << e.what() << "\n";
      return 1;
    }
  }
  return 0;
}

int run_summary(const std::string& outdir, const std::string& out_file, std::ostream& out,
                std::ostream& err) {
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
    write_file_atomic(out_file, text);
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace milabench
