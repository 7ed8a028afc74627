#include "report/report_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "measure/stats.hpp"
#include "report/evidence.hpp"
#include "report/evidence_json.hpp"
#include "report/marks.hpp"
#include "report/summary_flags.hpp"
#include "results/stand_ins.hpp"

namespace milabench {
using nlohmann::json;

namespace {
using evidence_json::num;

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

// perf_ratio's interval from both sides' perf CIs (report_data.hpp).
Interval ratio_interval(const ReportRow& r, const ReportRow& base) {
  auto half = [](const Interval& ci) {
    return ci.valid() && ci.lo > 0 ? (std::log(ci.hi) - std::log(ci.lo)) / 2 : 0.0;
  };
  if (!(std::isfinite(r.perf_ratio) && r.perf_ratio > 0 && r.ci.valid() && r.ci.lo > 0)) return no_interval();
  const double h = std::hypot(half(r.ci), half(base.ci));
  return {r.perf_ratio * std::exp(-h), r.perf_ratio * std::exp(h)};
}

// Context box values a summary carries: its tests' inventory and, from the
// test names (<suite>.<test>), the profile.
std::map<std::string, std::vector<std::string>> summary_context(const json& summary) {
  static const std::map<std::string, std::string> kFromInventory = {
      {"gpu_model", "gpus"}, {"driver", "driver"},       {"libtorch_version", "libtorch"},
      {"cpu_count", "cpus"}, {"isolation", "isolation"}, {"dataset", "data"}};
  std::map<std::string, std::set<std::string>> acc;
  for (const auto& [name, entry] : summary.items()) {
    if (name.find('.') != std::string::npos) acc["profile"].insert(name.substr(0, name.find('.')));
    if (!entry.is_object() || !entry.contains("inventory") || !entry["inventory"].is_object()) continue;
    for (const auto& [k, vals] : entry["inventory"].items())
      if (kFromInventory.count(k) && vals.is_array())
        for (const auto& v : vals)
          if (v.is_string()) acc[kFromInventory.at(k)].insert(v.get<std::string>());
  }
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [k, v] : acc) out[k] = {v.begin(), v.end()};
  return out;
}

// The summary entry's "arguments" (a list of argument lists), each list
// joined by spaces, sorted and distinct.
std::vector<std::string> argument_lists(const json& entry) {
  std::set<std::string> out;
  const json lists = entry.is_object() ? entry.value("arguments", json()) : json();
  if (!lists.is_array()) return {};
  for (const auto& list : lists) {
    if (!list.is_array()) continue;
    std::string words;
    for (const auto& w : list)
      if (w.is_string()) words += (words.empty() ? "" : " ") + w.get<std::string>();
    out.insert(words);
  }
  return {out.begin(), out.end()};
}

}  // namespace

double baseline_adjusted(const ReportRow& b) { return b.perf - std::min(b.std, b.perf); }

ReportRow make_row(const std::string& name, const json& entry) {
  ReportRow r;
  r.name = name;
  if (entry.is_object() && entry.contains("count_unit") && entry["count_unit"].is_string())
    r.count_unit = entry["count_unit"].get<std::string>();
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
  r.shortcuts = inventory_names(entry, "shortcuts");
  r.stand_ins = inventory_names(entry, kStandInsKey);
  r.arguments = argument_lists(entry);
  if (const json c = entry.is_object() ? entry.value("contended_runs", json()) : json(); c.is_object())
    r.contended_runs = static_cast<int>(c.size());
  if (const json m = entry.is_object() ? entry.value("mixed_setups", json()) : json(); m.is_object())
    for (const auto& [k, v] : m.items()) r.mixed_setups.push_back(k);
  const json energy = entry.is_object() ? entry.value("energy", json()) : json();
  r.joules_per_example = num(energy.is_object() ? energy.value("joules_per_example", json()) : json(), "mean");
  r.examples_per_watt = num(energy.is_object() ? energy.value("examples_per_watt", json()) : json(), "mean");
  r.model = read_model_figures(entry);
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

double suite_score(const std::map<std::string, double>& weights, const std::map<std::string, double>& perf) {
  double sw = 0, swl = 0;
  bool zero = false;
  for (const auto& [name, w] : weights) {
    sw += w;
    auto it = perf.find(name);
    if (it == perf.end() || !std::isfinite(it->second)) continue;
    if (it->second > 0)
      swl += w * std::log(it->second);
    else if (w > 0)
      zero = true;
  }
  if (!(sw > 0)) return kNaN;
  return zero ? 0.0 : std::exp(swl / sw);
}

std::string zero_score_reason(const std::vector<std::string>& zero_tests) {
  if (zero_tests.empty()) return "";
  std::string names;
  for (const auto& t : zero_tests) names += (names.empty() ? "" : ", ") + t;
  return fmt::format(
      "0 because perf_adj is 0 for {} (std >= perf, or every run failed) and the original's report.py "
      "takes log(0) = -inf",
      names);
}

namespace {

// A test has a result when its perf_adj is a number; 0 (clamped) counts, and zeroes the score.
bool usable(double perf_adj) { return std::isfinite(perf_adj) && perf_adj >= 0; }

// Coverage and the original's scores (ReportData's comments).
void fill_scores(ReportData& d, const json& weights, const std::vector<ReportRow>& base_rows) {
  std::map<std::string, double> w, ours, base;
  for (const auto& r : d.rows) ours[r.name] = r.perf_adj;
  for (const auto& b : base_rows) base[b.name] = b.perf_adj;
  if (weights.is_object()) {
    for (const auto& [name, entry] : weights.items()) {
      double v = weight_of(weights, name);
      if (std::isfinite(v) && v > 0) w[name] = v;
    }
  } else {
    for (const auto& [name, perf] : ours) w[name] = 1.0;
    for (const auto& [name, perf] : base) w[name] = 1.0;
  }
  d.weighted_tests = static_cast<int>(w.size());
  std::map<std::string, double> common;
  for (const auto& [name, weight] : w) {
    auto o = ours.find(name);
    const bool have = o != ours.end() && usable(o->second);
    if (have)
      ++d.covered_tests;
    else
      d.missing_tests.push_back(name);
    if (have && o->second == 0) d.zero_tests.push_back(name);
    auto b = base.find(name);
    if (b != base.end() && usable(b->second) && b->second == 0 && d.has_compare) d.base_zero_tests.push_back(name);
    if (have && b != base.end() && usable(b->second)) common[name] = weight;
  }
  d.score = suite_score(w, ours);
  d.score_zero_why = zero_score_reason(d.zero_tests);
  d.base_score_zero_why = zero_score_reason(d.base_zero_tests);
  for (const auto& name : d.missing_tests) {
    auto without = w;
    without.erase(name);
    d.score_without_missing.push_back({name, suite_score(without, ours)});
  }
  d.base_score = d.score_ratio = d.common_score = d.common_base_score = d.common_ratio = kNaN;
  if (!d.has_compare) return;
  d.base_score = suite_score(w, base);
  d.score_ratio = d.score / d.base_score;
  d.common_tests = static_cast<int>(common.size());
  if (common.empty()) return;
  d.common_score = suite_score(common, ours);
  d.common_base_score = suite_score(common, base);
  d.common_ratio = d.common_score / d.common_base_score;
}

}  // namespace

ReportData build_report(const json& summary, const json& weights, const json& baseline, double price, bool compare_gpus,
                        const std::string& title, double margin_pct) {
  if (!summary.is_object()) throw std::runtime_error("summary is not a JSON object");
  ReportData d;
  d.title = title;
  d.price = price;
  d.has_compare = !baseline.is_null();
  d.context = summary_context(summary);
  d.result_flags = summary_flag_lines(summary);
  std::vector<ReportRow> base_rows;
  const NoiseDeviations suite_deviations =
      d.has_compare ? suite_noise_deviations(summary, baseline) : NoiseDeviations{};
  for (const auto& [name, entry] : summary.items()) {  // nlohmann objects iterate sorted
    ReportRow r = make_row(name, entry);
    r.weight = weight_of(weights, name);
    fill_row_evidence(r, entry);
    if (d.has_compare && baseline.is_object() && baseline.contains(name)) {
      ReportRow b = make_row(name, baseline[name]);
      fill_row_evidence(b, baseline[name]);
      r.perf_base = b.perf;
      r.base_stand_ins = b.stand_ins;
      r.base_shortcuts = b.shortcuts;
      r.base_arguments = b.arguments;
      r.perf_ratio = r.perf / b.perf;
      r.perf_base_adj = baseline_adjusted(b);
      r.perf_ratio_adj = r.perf_adj / r.perf_base_adj;
      fill_significance(r, entry, baseline[name], margin_pct, suite_deviations);
      r.ratio_ci = ratio_interval(r, b);
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
  d.score_ci = score_interval(d.rows, summary, d.score_ci_parametric, d.score_ci_note);
  if (d.has_compare) {
    if (!baseline.is_object()) throw std::runtime_error("baseline is not a JSON object");
    for (const auto& [name, entry] : baseline.items()) {
      ReportRow b = make_row(name, entry);
      b.weight = weight_of(weights, name);
      b.perf_adj = baseline_adjusted(b);  // the baseline's score uses perf_base_adj (report.py)
      base_rows.push_back(b);
    }
    d.inventory_diffs = inventory_differences(summary, baseline);
    // A baseline of ours (a summary file, @last) carries its own flags: a
    // contended or duplicated baseline moves every ratio against it.
    for (const auto& line : summary_flag_lines(baseline, "the baseline's machine"))
      d.result_flags.push_back("IN THE BASELINE: " + line);
  }
  fill_scores(d, weights, base_rows);
  if (d.covered_tests < d.weighted_tests) {  // the interval covers the tests with results only
    d.score_ci = no_interval();
    d.score_ci_note =
        fmt::format("no interval: partial suite ({} of {} weighted tests)", d.covered_tests, d.weighted_tests);
  } else if (!d.zero_tests.empty()) {
    d.score_ci = no_interval();
    d.score_ci_note = "no interval: the score is 0 (a perf_adj of 0)";
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

std::string missing_effect_text(const ReportData& d) {
  std::string out;
  for (const auto& [name, without] : d.score_without_missing) {
    if (!std::isfinite(without) || !std::isfinite(d.score) || without == d.score) continue;
    out += fmt::format("{}{} {} it ({:.2f} without it)", out.empty() ? "" : ", ", name,
                       d.score > without ? "raised" : "lowered", without);
  }
  return out;
}

std::string failure_kinds_text(const ReportData& d) {
  std::string out;
  for (const auto& [k, n] : d.failure_kinds) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, n);
  return out;
}

}  // namespace milabench
