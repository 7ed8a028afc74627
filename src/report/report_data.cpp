#include "report/report_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "report/evidence.hpp"

namespace milabench {
using nlohmann::json;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

double num(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return kNaN;
  return obj[key].get<double>();
}

double weight_of(const json& weights, const std::string& name) {
  if (weights.is_null()) return 1.0;
  if (!weights.contains(name)) return kNaN;
  const json& w = weights[name];
  if (w.is_number()) return w.get<double>();
  return num(w, "weight");
}

// Sort key that puts "2" before "10" for numeric device ids.
bool device_less(const std::string& a, const std::string& b) {
  if (a.size() != b.size() && std::all_of(a.begin(), a.end(), ::isdigit) && std::all_of(b.begin(), b.end(), ::isdigit))
    return a.size() < b.size();
  return a < b;
}

}  // namespace

double baseline_adjusted(const ReportRow& b) { return b.perf - std::min(b.std, b.perf); }

ReportRow make_row(const std::string& name, const json& entry) {
  ReportRow r;
  r.name = name;
  r.n = num(entry, "n");
  r.fail = num(entry, "failures");
  const json train = entry.is_object() ? entry.value("train", json()) : json();
  r.perf = num(train, "mean");
  const double sd = num(train, "std");
  r.std_pct = sd / r.perf * 100.0;
  r.std = sd;
  // report.py with the variance penalty (the spec's perf * (1 - std%) * (1 - fail/n)),
  // clamped as the original: the penalty never exceeds perf.
  r.perf_adj = (1.0 - r.fail / r.n) * (r.perf - std::min(sd, r.perf));
  r.perf_base = r.perf_ratio = r.perf_base_adj = r.perf_ratio_adj = kNaN;
  const json energy = entry.is_object() ? entry.value("energy", json()) : json();
  r.joules_per_example = num(energy.is_object() ? energy.value("joules_per_example", json()) : json(), "mean");
  r.examples_per_watt = num(energy.is_object() ? energy.value("examples_per_watt", json()) : json(), "mean");
  return r;
}

double weighted_score(const std::vector<ReportRow>& rows) {
  double sw = 0, swl = 0;
  for (const auto& r : rows) {
    if (!(std::isfinite(r.weight) && r.weight > 0 && std::isfinite(r.perf_adj) && r.perf_adj > 0)) continue;
    sw += r.weight;
    swl += r.weight * std::log(r.perf_adj);
  }
  return sw > 0 ? std::exp(swl / sw) : kNaN;
}

ReportData build_report(const json& summary, const json& weights, const json& baseline, double price, bool compare_gpus,
                        const std::string& title) {
  if (!summary.is_object()) throw std::runtime_error("summary is not a JSON object");
  ReportData d;
  d.title = title;
  d.price = price;
  d.has_compare = !baseline.is_null();
  std::vector<ReportRow> base_rows;
  for (const auto& [name, entry] : summary.items()) {  // nlohmann objects iterate sorted
    ReportRow r = make_row(name, entry);
    r.weight = weight_of(weights, name);
    fill_row_evidence(r, entry);
    if (d.has_compare && baseline.is_object() && baseline.contains(name)) {
      ReportRow b = make_row(name, baseline[name]);
      r.perf_base = b.perf;
      r.perf_ratio = r.perf / b.perf;
      r.perf_base_adj = baseline_adjusted(b);
      r.perf_ratio_adj = r.perf_adj / r.perf_base_adj;
      fill_significance(r, entry, baseline[name]);
    }
    if (std::isfinite(r.n)) d.total_n += r.n;
    if (std::isfinite(r.fail)) d.total_fail += r.fail;
    if (entry.contains("failure_kinds") && entry["failure_kinds"].is_object())
      for (const auto& [k, v] : entry["failure_kinds"].items())
        if (v.is_number()) d.failure_kinds[k] += v.get<double>();
    d.rows.push_back(r);
  }
  d.failure_rate = d.total_n > 0 ? d.total_fail / d.total_n : kNaN;
  d.failure_pass = d.failure_rate <= 0.01;
  d.score = weighted_score(d.rows);
  d.score_ci = score_interval(d.rows, summary, d.score_ci_parametric);
  d.base_score = d.score_ratio = kNaN;
  if (d.has_compare) {
    if (!baseline.is_object()) throw std::runtime_error("baseline is not a JSON object");
    for (const auto& [name, entry] : baseline.items()) {
      ReportRow b = make_row(name, entry);
      b.weight = weight_of(weights, name);
      b.perf_adj = baseline_adjusted(b);  // the baseline's score uses perf_base_adj (report.py)
      base_rows.push_back(b);
    }
    d.base_score = weighted_score(base_rows);
    d.score_ratio = d.score / d.base_score;
    d.inventory_diffs = inventory_differences(summary, baseline);
  }
  if (compare_gpus) {
    for (const auto& [name, entry] : summary.items()) {
      if (!entry.is_object() || !entry.contains("pergpu") || !entry["pergpu"].is_object() || entry["pergpu"].empty())
        continue;
      std::vector<std::string> devs;
      for (const auto& [dev, st] : entry["pergpu"].items()) devs.push_back(dev);
      std::sort(devs.begin(), devs.end(), device_less);
      for (const char* stat : {"mean", "min", "max"}) {
        GpuRatios g{name, stat, {}};
        double mx = kNaN;
        for (const auto& dev : devs) {
          double v = num(entry["pergpu"][dev], stat);
          if (std::isfinite(v)) mx = std::isfinite(mx) ? std::max(mx, v) : v;
        }
        for (const auto& dev : devs) g.devices.push_back({dev, num(entry["pergpu"][dev], stat) / mx});
        d.gpus.push_back(g);
      }
    }
  }
  return d;
}

std::string failure_kinds_text(const ReportData& d) {
  std::string out;
  for (const auto& [k, n] : d.failure_kinds) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, n);
  return out;
}

}  // namespace milabench
