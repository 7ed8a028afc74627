#include "report/summary.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "report/evidence.hpp"
#include "results/input_checks.hpp"

namespace milabench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string fmt_warning(const fs::path& p, const std::string& what) {
  return terminal_safe("warning: skipping " + p.string() + ": " + what + " (fix or remove the file)");
}

// Number from a JSON value; NaN for null, "NaN" strings and non-numbers.
double as_number(const json& v) {
  if (v.is_number()) return v.get<double>();
  return kNaN;
}

std::vector<double> as_rates(const json& v) {
  std::vector<double> out;
  if (!v.is_array()) return out;
  for (const auto& x : v) out.push_back(as_number(x));
  return out;
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

// gpu-progression tests are named <suite>.<test>.<K> with K the GPU count.
bool is_gpu_progression(const std::string& name) {
  auto first = name.find('.');
  auto last = name.rfind('.');
  if (first == std::string::npos || first == last || last + 1 >= name.size()) return false;
  return std::all_of(name.begin() + last + 1, name.end(), [](unsigned char c) { return std::isdigit(c); });
}

// One counted result file, loaded. Returns false (with a warning) when the
// file is not a usable result; sets `counted` false for subjob/no-job-id.
struct Loaded {
  json doc;
  std::string name;
  bool counted = false;
};

bool load_result(const fs::path& p, Loaded& out, std::vector<std::string>& warnings) {
  try {
    check_file_size(p.string(), kMaxResultFileBytes, "a result file");
    out.doc = read_json_file(p.string());
  } catch (const std::exception& e) {
    warnings.push_back(fmt_warning(p, e.what()));
    return false;
  }
  if (!out.doc.is_object() || !out.doc.contains("name") || !out.doc["name"].is_string()) {
    warnings.push_back(fmt_warning(p, "not a result file (no \"name\" string)"));
    return false;
  }
  out.name = out.doc["name"].get<std::string>();
  if (terminal_safe(out.name) != out.name) {  // an ANSI escape would reach the terminal with every line naming it
    warnings.push_back(fmt_warning(p, "its \"name\" holds control characters or bytes that are not UTF-8"));
    return false;
  }
  const json& jid = out.doc.value("job_id", json());
  bool subjob = out.doc.value("subjob", json(false)) == json(true);
  out.counted = !as_id(jid).empty() && !subjob;
  return true;
}

std::vector<fs::path> json_files(const std::string& outdir) {
  std::error_code ec;
  if (!fs::is_directory(outdir, ec))
    throw std::runtime_error(outdir + ": not a directory (pass the output directory of milarun run)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(outdir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
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

// A failure kind as written by milarun ([a-z_]+); anything else is "unknown".
std::string known_kind(const json& k) {
  if (!k.is_string()) return "unknown";
  const std::string s = k.get<std::string>();
  if (s.empty() || s.size() > 32 || s.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
    return "unknown";
  return s;
}

}  // namespace

double perf_of_rates(const std::vector<double>& rates) {
  const long n = static_cast<long>(rates.size());
  const long begin = std::max(0L, n - 20);
  const long end = std::max(0L, n - 2);
  if (end <= begin) return kNaN;
  double sum = 0;
  for (long i = begin; i < end; ++i) sum += rates[i];
  return sum / static_cast<double>(end - begin);
}

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
  return {{"n", values.size()}, {"min", mn}, {"max", mx}, {"mean", mean},
          {"std", std::sqrt(ss / values.size())}};
}

json parse_json_lenient(const std::string& text) {
  std::string s;
  s.reserve(text.size());
  bool in_str = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_str) {
      s += c;
      if (c == '\\' && i + 1 < text.size()) s += text[++i];
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') { in_str = true; s += c; continue; }
    if (text.compare(i, 3, "NaN") == 0) { s += "null"; i += 2; continue; }
    if (text.compare(i, 8, "Infinity") == 0) { s += "null"; i += 7; continue; }
    if (text.compare(i, 9, "-Infinity") == 0) { s += "null"; i += 8; continue; }
    s += c;
  }
  return json::parse(s);
}

json read_json_file(const std::string& path, std::uint64_t max_bytes) {
  check_file_size(path, max_bytes, "this file");
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return parse_json_lenient(ss.str());
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
  struct Acc {
    long n = 0, failures = 0;
    std::vector<double> total, train;
    std::map<std::string, std::vector<double>> pergpu;
    double peak = kNaN;
    std::vector<double> joules_per_example, examples_per_watt;  // runs whose power was measured
    std::vector<RunEvidence> runs;      // successful timings entries
    json inventory = json::object();    // {key: distinct values}
    std::map<std::string, int> failure_kinds;  // failure_kind -> count
  };
  std::map<std::string, Acc> acc;
  for (const auto& p : json_files(outdir)) {
    Loaded r;
    if (!load_result(p, r, warnings) || !r.counted) continue;
    const json& d = r.doc;
    Acc& a = acc[r.name];
    a.n++;
    bool ok = d.value("success", json(false)) == json(true);
    bool nonsense = false;  // a success whose numbers cannot be right: "bad_result"
    if (d.contains("metrics") && d["metrics"].is_object())
      for (const auto& m : d["metrics"]) ok = ok && !metric_is_bad(m);
    std::vector<double> perfs;
    std::vector<RunEvidence> evidence;
    const std::string dev = as_id(d.value("device", json()));
    merge_inventory(a.inventory, result_inventory(d));
    const json timings = d.value("timings", json::object());
    if (timings.is_object()) {
      if (timings.contains("program") && timings["program"].is_object()) {
        double t = as_number(timings["program"].value("time", json()));
        if (std::isfinite(t)) a.total.push_back(t);
      }
      for (const auto& [k, v] : timings.items()) {
        if (k.rfind("train", 0) != 0 || !v.is_object()) continue;
        const std::vector<double> rates = as_rates(v.value("rates", json()));
        double perf = perf_of_rates(rates);
        if (!std::isfinite(perf)) ok = false;
        if (std::string why = rates_problem(rates, perf); ok && !why.empty()) {
          warnings.push_back(terminal_safe("warning: " + p.string() + ": counted as failed (bad_result): " + why));
          ok = false;
          nonsense = true;
        }
        perfs.push_back(perf);
        const std::string label = p.filename().string() + (k == "train" ? "" : ":" + k);
        evidence.push_back(run_evidence(label, dev, v));
      }
    }
    if (perfs.empty()) ok = false;
    if (!ok) {
      a.failures++;
      const json k = d.value("failure_kind", json());
      // Older results and NaN metrics carry no kind; a success flag with bad numbers is "bad_result".
      a.failure_kinds[nonsense                                        ? "bad_result"
                      : k.is_string()                                 ? known_kind(k)
                      : d.value("success", json(false)) == json(true) ? "bad_result"
                                                                      : "unknown"]++;
    } else {
      a.train.insert(a.train.end(), perfs.begin(), perfs.end());
      a.runs.insert(a.runs.end(), evidence.begin(), evidence.end());
      if (!dev.empty() && !is_gpu_progression(r.name))
        a.pergpu[dev].insert(a.pergpu[dev].end(), perfs.begin(), perfs.end());
      add_energy(d, perfs.front(), a.joules_per_example, a.examples_per_watt);
    }
    // Peak memory in MB: GPU memory when monitored, else host RSS.
    double peak = kNaN;
    if (d.contains("gpu_monitor") && d["gpu_monitor"].is_object())
      for (const auto& g : d["gpu_monitor"]) {
        if (!g.is_object() || !g.contains("memory") || !g["memory"].is_object()) continue;
        double m = as_number(g["memory"].value("max", json()));
        if (std::isfinite(m)) peak = std::isfinite(peak) ? std::max(peak, m) : m;
      }
    if (!std::isfinite(peak) && d.contains("memory") && d["memory"].is_object())
      peak = as_number(d["memory"].value("rss_peak_mb", json()));
    if (std::isfinite(peak)) a.peak = std::isfinite(a.peak) ? std::max(a.peak, peak) : peak;
  }
  json out = json::object();
  for (const auto& [name, a] : acc) {
    json pg = json::object();
    for (const auto& [dev, v] : a.pergpu) pg[dev] = compute_stats(v);
    json entry = {{"n", a.n}, {"failures", a.failures}, {"total", compute_stats(a.total)},
                  {"train", compute_stats(a.train)}, {"pergpu", pg},
                  {"peak_memory", std::isfinite(a.peak) ? json(a.peak) : json()}};
    if (!a.joules_per_example.empty())
      entry["energy"] = {{"joules_per_example", compute_stats(a.joules_per_example)},
                         {"examples_per_watt", compute_stats(a.examples_per_watt)}};
    // Added beside the baselines' schema (evidence.hpp).
    entry["stats"] = stats_block(a.runs, entry);
    entry["inventory"] = a.inventory;
    if (!a.failure_kinds.empty()) entry["failure_kinds"] = a.failure_kinds;
    out[name] = entry;
  }
  return out;
}

std::map<std::string, std::vector<RateSeries>> collect_rate_series(const std::string& outdir,
                                                                   std::vector<std::string>& warnings) {
  std::map<std::string, std::vector<RateSeries>> out;
  for (const auto& p : json_files(outdir)) {
    Loaded r;
    if (!load_result(p, r, warnings) || !r.counted) continue;
    append_run_series(out[r.name], p.filename().string(), r.doc);
  }
  return out;
}

}  // namespace milabench
