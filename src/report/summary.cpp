#include "report/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "measure/stats.hpp"
#include "measure/summary_window.hpp"
#include "report/evidence.hpp"
#include "report/model_figures.hpp"
#include "report/summary_flags.hpp"
#include "results/input_checks.hpp"
#include "results/json_keys.hpp"
#include "results/result_record.hpp"
#include "results/result_scan.hpp"

namespace milabench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string fmt_warning(const fs::path& p, const std::string& what) {
  return terminal_safe("warning: skipping " + p.string() + ": " + what + " (fix or remove the file)");
}
std::string fmt_warning(const std::string& where, const std::string& what) {
  return fmt_warning(fs::path(where), what);
}

// Number from a JSON value; NaN for null, "NaN" strings and non-numbers.
double as_number(const json& v) {
  if (v.is_number()) return v.get<double>();
  return kNaN;
}

bool metric_is_bad(const json& v) {
  if (v.is_null()) return true;
  if (v.is_number()) return !std::isfinite(v.get<double>());
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s == "nan" || s == "inf" || s == "-inf" || s == "infinity" || s == "-infinity";
  }
  return false;
}

std::string as_id(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return json(v).dump();
  return "";
}

// One result file, loaded and read into its record. Returns false (with a
// warning) when the file is not a usable result.
struct Loaded {
  json doc;
  ResultRecord rec;
};

// Reads one result document into its record. Returns false (with a warning
// naming `where`) when it is not a usable result.
bool read_record(const std::string& where, const json& doc, ResultRecord& out, std::vector<std::string>& warnings) {
  std::string why;
  auto rec = parse_result_record(doc, &why);
  if (!rec) {
    warnings.push_back(fmt_warning(where, why));
    return false;
  }
  if (terminal_safe(rec->name) != rec->name) {  // an ANSI escape would reach the terminal with every line naming it
    warnings.push_back(fmt_warning(where, "its \"name\" holds control characters or bytes that are not UTF-8"));
    return false;
  }
  out = std::move(*rec);
  return true;
}

bool load_result(const fs::path& p, Loaded& out, std::vector<std::string>& warnings) {
  try {
    check_file_size(p.string(), kMaxResultFileBytes, "a result file");
    out.doc = read_json_file(p.string());
  } catch (const std::exception& e) {
    warnings.push_back(fmt_warning(p, e.what()));
    return false;
  }
  return read_record(p.string(), out.doc, out.rec, warnings);
}

// Every result file under `outdir`, its sub-folders included (report.py walks them).
std::vector<fs::path> json_files(const std::string& outdir) {
  std::error_code ec;
  if (!fs::is_directory(outdir, ec))
    throw std::runtime_error(outdir + ": not a directory (pass the output directory of milarun run)");
  std::vector<fs::path> files;
  for (const auto& f : json_files_in(outdir, /*recursive=*/true)) files.push_back(f);
  return files;
}

// Why a run's rates are nonsense ("" when usable): a negative, non-finite or
// absurd slice rate, or a throughput (perf) that is not positive.
std::string rates_problem(const std::vector<double>& rates, double perf) {
  for (double r : rates) {
    if (!std::isfinite(r)) return "a rate is not a finite number";
    if (r < 0) return "a rate is negative";
    if (r > kMaxPlausibleRate) return "a rate is over 1e12 examples/s";
  }
  if (std::isfinite(perf) && perf <= 0) return "its throughput (mean of the last rates) is 0";
  return "";
}

// The label of a file in charts and evidence: its path under `outdir`.
std::string file_label(const fs::path& p, const std::string& outdir) {
  std::error_code ec;
  auto rel = fs::relative(p, outdir, ec);
  return ec || rel.empty() ? p.filename().string() : rel.string();
}

// report.py's peak memory of one run: the GPU memory of its one device, or
// of every device it watched; without GPU telemetry, its host RSS peak (ours).
double peak_memory_of(const ResultRecord& r) {
  double peak = kNaN;
  auto take = [&](const json& g) {
    if (!g.is_object() || !g.contains("memory") || !g["memory"].is_object()) return;
    double m = as_number(g["memory"].value("max", json()));
    if (std::isfinite(m)) peak = std::isfinite(peak) ? std::max(peak, m) : m;
  };
  const std::string dev = r.pergpu_device();
  if (!dev.empty() && r.gpu_monitor.contains(dev))
    take(r.gpu_monitor[dev]);
  else
    for (const auto& g : r.gpu_monitor) take(g);
  if (!std::isfinite(peak) && r.rss_peak_mb) peak = *r.rss_peak_mb;
  return peak;
}

}  // namespace

double perf_of_rates(const std::vector<double>& rates) { return summary_window_mean(rates); }

json compute_stats(const std::vector<double>& values) {
  if (values.empty()) return json();
  double sum = 0, mn = values[0], mx = values[0];
  for (double v : values) {
    sum += v;
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  const double mean = sum / values.size();
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  return {{"n", values.size()}, {"min", mn}, {"max", mx}, {"mean", mean}, {"std", std::sqrt(ss / values.size())}};
}

// Python's bare NaN/Infinity/-Infinity outside strings replaced by null.
static std::string lenient_text(const std::string& text) {
  std::string s;
  s.reserve(text.size());
  bool in_str = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_str) {
      s += c;
      if (c == '\\' && i + 1 < text.size())
        s += text[++i];
      else if (c == '"')
        in_str = false;
      continue;
    }
    if (c == '"') {
      in_str = true;
      s += c;
      continue;
    }
    if (text.compare(i, 3, "NaN") == 0) {
      s += "null";
      i += 2;
      continue;
    }
    if (text.compare(i, 8, "Infinity") == 0) {
      s += "null";
      i += 7;
      continue;
    }
    if (text.compare(i, 9, "-Infinity") == 0) {
      s += "null";
      i += 8;
      continue;
    }
    s += c;
  }
  return s;
}

json parse_json_lenient(const std::string& text) { return json::parse(lenient_text(text)); }

json read_json_file(const std::string& path, std::uint64_t max_bytes) {
  check_file_size(path, max_bytes, "this file");
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return parse_json_unique_keys(lenient_text(ss.str()));
  } catch (const DuplicateKeyError& e) {
    throw std::runtime_error(path + ": " + e.what());
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": invalid JSON (" + e.what() + ")");
  }
}

// Energy of one successful run where the monitor measured power: joules per
// example over the monitored run (energy_j / timings.train.count) and
// examples per watt (perf / mean power, mean power = energy_j / duration_s).
static void add_energy(const json& d, double perf, std::vector<double>& jpe, std::vector<double>& epw) {
  const json mon = d.value("monitor", json::object());
  if (!mon.is_object() || mon.value("power_measured", json(false)) != json(true)) return;
  double energy = as_number(mon.value("energy_j", json()));
  double duration = as_number(mon.value("duration_s", json()));
  const json train = d.value("timings", json::object()).value("train", json::object());
  double count = train.is_object() ? as_number(train.value("count", json())) : kNaN;
  if (!(energy > 0 && duration > 0 && count > 0 && std::isfinite(perf))) return;
  jpe.push_back(energy / count);
  epw.push_back(perf / (energy / duration));
}

json summarize_directory(const std::string& outdir, std::vector<std::string>& warnings) {
  std::vector<LabeledResult> results;
  for (const auto& p : json_files(outdir)) {
    Loaded l;
    if (!load_result(p, l, warnings)) continue;
    results.push_back({file_label(p, outdir), p.string(), std::move(l.doc)});
  }
  return summarize_results(results, warnings);
}

namespace {

// What the summary gathers of one test's results.
struct TestAccumulator {
  long n = 0, failures = 0;
  std::vector<double> total, train;
  std::map<std::string, std::vector<double>> pergpu;
  double peak = 0;                                            // report.py's default
  std::vector<double> joules_per_example, examples_per_watt;  // runs whose power was measured
  ModelFiguresAccumulator model;                              // metrics.mfu / peak_memory of successful runs
  std::vector<RunEvidence> runs;                              // successful timings entries
  json inventory = json::object();                            // {key: distinct values}
  std::map<std::string, int> failure_kinds;                   // failure_kind -> count
  SummaryFlags flags;                                         // duplicate runs, argument lists
};

// One test's summary entry (report.py's keys, then ours: energy, stats,
// inventory, failure_kinds, the flags' keys); the flags' warnings appended.
json summary_entry(const std::string& name, const TestAccumulator& a, std::vector<std::string>& warnings) {
  json pg = json::object();
  for (const auto& [dev, v] : a.pergpu) pg[dev] = compute_stats(v);
  json entry = {
      {"n", a.n},     {"failures", a.failures}, {"total", compute_stats(a.total)}, {"train", compute_stats(a.train)},
      {"pergpu", pg}, {"peak_memory", a.peak}};
  if (!a.joules_per_example.empty())
    entry["energy"] = {{"joules_per_example", compute_stats(a.joules_per_example)},
                       {"examples_per_watt", compute_stats(a.examples_per_watt)}};
  if (a.model.any) entry["model"] = a.model.to_json();
  // Added beside the baselines' schema (evidence.hpp).
  entry["stats"] = stats_block(a.runs, entry);
  entry["inventory"] = a.inventory;
  if (!a.failure_kinds.empty()) entry["failure_kinds"] = a.failure_kinds;
  a.flags.write(name, entry, warnings);
  return entry;
}

}  // namespace

json summarize_results(const std::vector<LabeledResult>& results, std::vector<std::string>& warnings) {
  std::map<std::string, TestAccumulator> acc;
  for (const auto& lr : results) {
    ResultRecord r;
    if (!read_record(lr.where, lr.doc, r, warnings) || !r.counted()) continue;
    const json& d = lr.doc;
    TestAccumulator& a = acc[r.group()];
    a.n++;
    a.flags.add(r, lr.label, warnings);
    // report.py's _successful: success and no NaN metric; ours also needs usable rates.
    bool ok = r.success;
    for (const auto& m : r.metrics) ok = ok && !metric_is_bad(m);
    const std::string dev = as_id(d.value("device", json()));
    json setup = result_inventory(d);
    if (d.contains("milarun") && d["milarun"].is_object())
      setup["milarun"] =
          d["milarun"].value("version", std::string("?")) + " (" + d["milarun"].value("commit", std::string("?")) + ")";
    merge_inventory(a.inventory, setup);
    std::vector<double> perfs;
    std::vector<RunEvidence> evidence;
    for (const auto& t : r.trains) {
      double perf = perf_of_rates(t.rates);
      // Before the perf check: a NaN, infinite or string rate also makes perf NaN, and deserves its line.
      if (std::string why = rates_problem(t.rates, perf); ok && !why.empty()) {  // kind "bad_result" below
        warnings.push_back(terminal_safe("warning: " + lr.where + ": counted as failed (bad_result): " + why));
        ok = false;
      }
      if (!std::isfinite(perf)) ok = false;
      perfs.push_back(perf);
      const std::string label = lr.label + (t.key == "train" ? "" : ":" + t.key);
      evidence.push_back(run_evidence(label, dev, t.doc));
    }
    if (perfs.empty() && ok) {  // a success with nothing measured: not a result of milarun run
      warnings.push_back(terminal_safe("warning: " + lr.where +
                                       ": counted as failed (bad_result): it says success but has no \"train\" "
                                       "timings with rates"));
      ok = false;
    }
    a.flags.add_skipped(r.images_skipped);
    const bool bad_data = ok && r.skipped_share() > kMaxSkippedInputShare;  // less work per example: not a result
    if (bad_data) {
      warnings.push_back(terminal_safe(fmt::format(
          "warning: {}: counted as failed (bad_data): it skipped {:g} unreadable input(s), {:.1f}% of what it read, "
          "over the {:g}% a run may skip; fix the data and run it again",
          lr.where, r.images_skipped, r.skipped_share() * 100, kMaxSkippedInputShare * 100)));
      ok = false;
    }
    if (!ok) {
      a.failures++;
      // Older results carry no kind; a success flag with bad numbers is "bad_result".
      const FailureKind k = bad_data         ? FailureKind::BadData
                            : r.failure_kind ? *r.failure_kind
                            : r.success      ? FailureKind::BadResult
                                             : FailureKind::Unknown;
      a.failure_kinds[failure_kind_name(k)]++;
      continue;
    }
    a.flags.add_contended(r, lr.label, warnings);
    // A result the original (Python) milabench wrote has no "milarun": another implementation, not a blank.
    json who = setup;
    if (!who.contains("milarun")) who["milarun"] = kNotMilarun;
    a.flags.add_setup(who);
    // Totals, rates and peak memory from successful runs only (report.py).
    if (r.program_time) a.total.push_back(*r.program_time);
    a.train.insert(a.train.end(), perfs.begin(), perfs.end());
    a.runs.insert(a.runs.end(), evidence.begin(), evidence.end());
    const std::string gpu = r.pergpu_device();
    if (!gpu.empty()) a.pergpu[gpu].insert(a.pergpu[gpu].end(), perfs.begin(), perfs.end());
    add_energy(d, perfs.front(), a.joules_per_example, a.examples_per_watt);
    a.model.add(r.metrics);
    const double peak = peak_memory_of(r);
    if (std::isfinite(peak)) a.peak = std::max(a.peak, peak);
  }
  json out = json::object();
  for (const auto& [name, a] : acc) out[name] = summary_entry(name, a, warnings);
  return out;
}

std::map<std::string, std::vector<RateSeries>> collect_rate_series(const std::string& outdir,
                                                                   std::vector<std::string>& warnings) {
  std::map<std::string, std::vector<RateSeries>> out;
  for (const auto& p : json_files(outdir)) {
    Loaded l;
    if (!load_result(p, l, warnings) || !l.rec.counted()) continue;
    append_run_series(out[l.rec.group()], file_label(p, outdir), l.doc);
  }
  return out;
}

}  // namespace milabench
