#include "report/evidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "measure/stats_intervals.hpp"
#include "measure/steady_state.hpp"
#include "report/evidence_json.hpp"
#include "report/summary.hpp"
#include "results/stand_ins.hpp"

namespace milabench {
using nlohmann::json;
using namespace evidence_json;

const std::vector<std::string> kInventoryKeys = {"gpu_model",    "driver",   "libtorch_version", "cpu_count",
                                                 "isolation",    "dataset",  "gpu_power_limit",  "gpu_mig",
                                                 "cpu_governor", "cpu_boost"};

namespace {

json num_or_null(double v) { return std::isfinite(v) ? json(v) : json(); }
json interval_json(const Interval& i) { return i.valid() ? json::array({i.lo, i.hi}) : json(); }

// The result inventory's gpu_power_limits as one text: "default" when every
// GPU read enforces its default limit, else each lowered one, "GPU 1: 300 W
// of 400 W default"; "" when none was read.
std::string power_limit_text(const json& limits) {
  std::string lowered;
  bool read = false;
  for (std::size_t i = 0; i < limits.size(); ++i) {
    const json& g = limits[i];
    const json l = g.is_object() ? g.value("limit_w", json()) : json();
    const json d = g.is_object() ? g.value("default_w", json()) : json();
    if (!l.is_number() || !d.is_number()) continue;
    read = true;
    if (l.get<double>() < d.get<double>() * kLoweredPowerLimit)
      lowered += fmt::format("{}GPU {}: {:g} W of {:g} W default", lowered.empty() ? "" : "; ", i, l.get<double>(),
                             d.get<double>());
  }
  return !read ? "" : lowered.empty() ? std::string(kDefaultPowerLimit) : lowered;
}

// The result inventory's gpu_mig as one text: kMigOff when every GPU read
// is whole, else each split one with its instances' profiles, "GPU 1:
// 1g.10gb, 3g.40gb" (the name's part after " MIG "); "" when none was read.
std::string mig_text(const json& gpus) {
  std::string split;
  bool read = false;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const json m = gpus[i].is_object() ? gpus[i].value("mig", json()) : json();
    if (!m.is_boolean()) continue;
    read = true;
    if (!m.get<bool>()) continue;
    std::string profiles;
    if (const json inst = gpus[i].value("instances", json()); inst.is_array())
      for (const auto& n : inst)
        if (n.is_string()) {
          const std::string name = n.get<std::string>();
          const auto at = name.rfind(" MIG ");
          profiles += (profiles.empty() ? "" : ", ") + (at == std::string::npos ? name : name.substr(at + 5));
        }
    split += fmt::format("{}GPU {}: {}", split.empty() ? "" : "; ", i, profiles.empty() ? "no instance" : profiles);
  }
  return !read ? "" : split.empty() ? std::string(kMigOff) : split;
}

std::vector<double> rates_of(const json& timing) {
  std::vector<double> out;
  if (!timing.is_object() || !timing.contains("rates") || !timing["rates"].is_array()) return out;
  for (const auto& x : timing["rates"]) out.push_back(x.is_number() ? x.get<double>() : kNaN);
  return out;
}
}  // namespace

RunEvidence run_evidence(const std::string& label, const std::string& device, const json& timing) {
  RunEvidence e;
  e.file = label;
  e.device = device;
  const std::vector<double> rates = rates_of(timing);
  e.perf = perf_of_rates(rates);
  SteadyOptions so;
  const double sd = num(timing, "sample_duration");
  if (sd > 0) so.sample_duration = sd;
  const WindowCheck w = check_window(rates, so);
  e.steady = w.steady;
  e.reason = w.reason;
  e.warmup_s = warmup_seconds(rates, so);
  if (w.long_enough) {
    const size_t end = rates.size() - 2;
    e.slice_ci = series_mean_ci(
        std::vector<double>(rates.begin() + static_cast<long>(end - 18), rates.begin() + static_cast<long>(end)));
  }
  e.until_stable = timing.value("until_stable", json(false)) == json(true);
  e.stopped_stable = timing.value("stopped_stable", json(false)) == json(true);
  return e;
}

json result_inventory(const json& r) {
  json out = json::object();
  auto str = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  if (r.contains("inventory") && r["inventory"].is_object()) {
    const json& inv = r["inventory"];
    std::string gpus;
    if (inv.contains("gpus") && inv["gpus"].is_array())
      for (const auto& g : inv["gpus"]) gpus += (gpus.empty() ? "" : ", ") + str(g);
    out["gpu_model"] = gpus.empty() ? "none" : gpus;
    out["driver"] = inv.contains("driver") && !inv["driver"].is_null() ? str(inv["driver"]) : "none";
    if (inv.contains("libtorch_version")) out["libtorch_version"] = str(inv["libtorch_version"]);
    if (inv.contains("cpu_count")) out["cpu_count"] = str(inv["cpu_count"]);
    if (const json p = inv.value("gpu_power_limits", json()); p.is_array())
      if (std::string text = power_limit_text(p); !text.empty()) out["gpu_power_limit"] = text;
    if (const json m = inv.value("gpu_mig", json()); m.is_array())
      if (std::string text = mig_text(m); !text.empty()) out["gpu_mig"] = text;
    if (const json g = inv.value("cpu_governors", json()); g.is_array() && !g.empty()) {
      std::string governors;
      for (const auto& x : g) governors += (governors.empty() ? "" : ",") + str(x);
      out["cpu_governor"] = governors;
    }
    if (const json b = inv.value("cpu_boost", json()); b.is_boolean()) out["cpu_boost"] = b.get<bool>() ? "on" : "off";
  }
  // Opt-in shortcuts (less work than the original, docs/fidelity.md): "none" or their names.
  std::string cuts;
  if (r.contains("metrics") && r["metrics"].is_object() && r["metrics"].contains("shortcuts") &&
      r["metrics"]["shortcuts"].is_array())
    for (const auto& c : r["metrics"]["shortcuts"]) cuts += (cuts.empty() ? "" : ",") + str(c);
  out["shortcuts"] = cuts.empty() ? "none" : cuts;
  std::string stand_ins;  // a different environment or data (results/stand_ins.hpp): "none" or their names
  for (const auto& n : read_stand_ins(r)) stand_ins += (stand_ins.empty() ? "" : ",") + n;
  out[kStandInsKey] = stand_ins.empty() ? "none" : stand_ins;
  if (r.contains("isolation") && r["isolation"].is_object() && r["isolation"].contains("kind"))
    out["isolation"] = str(r["isolation"]["kind"]);
  if (r.contains("dataset") && r["dataset"].is_object()) {
    const json& d = r["dataset"];
    const std::string name = d.contains("name") ? str(d["name"]) : "?";
    const json syn = d.value("synthetic", json());
    out["dataset"] = name + (syn == json(true) ? " (synthetic)" : syn == json(false) ? " (real)" : "");
  }
  return out;
}

void merge_inventory(json& acc, const json& one) {
  if (!acc.is_object()) acc = json::object();
  for (const auto& [k, v] : one.items()) {
    std::set<std::string> vals;
    if (acc.contains(k))
      for (const auto& x : acc[k]) vals.insert(x.get<std::string>());
    vals.insert(v.get<std::string>());
    acc[k] = json(std::vector<std::string>(vals.begin(), vals.end()));
  }
}

json fairness_of(const json& pergpu) {
  if (!pergpu.is_object()) return json();
  double mn = kNaN, mx = kNaN, sum = 0;
  int count = 0;
  std::string worst;
  for (const auto& [dev, st] : pergpu.items()) {
    const double m = num(st, "mean");
    if (!std::isfinite(m)) continue;
    if (!(m >= mn)) mn = m, worst = dev;  // true for the first (mn NaN) and each new minimum
    if (!(m <= mx)) mx = m;
    sum += m;
    ++count;
  }
  if (count < 2) return json();
  return {{"min", mn}, {"max", mx}, {"worst_device", worst}, {"worst_share", mn / (sum / count)}};
}

double noise_fraction(const json& entry) {
  double sum_cv2 = 0;
  int devices = 0;
  if (entry.is_object() && entry.contains("pergpu") && entry["pergpu"].is_object())
    for (const auto& [dev, st] : entry["pergpu"].items()) {
      const double n = num(st, "n"), m = num(st, "mean"), s = num(st, "std");
      if (!(n >= 2 && m > 0 && std::isfinite(s))) continue;
      const double cv = s * std::sqrt(n / (n - 1)) / m;  // population -> sample sd
      sum_cv2 += cv * cv;
      ++devices;
    }
  if (devices > 0) return std::sqrt(sum_cv2 / devices);
  const json& train = sub(entry, "train");
  const double n = num(train, "n"), m = num(train, "mean"), s = num(train, "std");
  if (n >= 2 && m > 0 && std::isfinite(s)) return s * std::sqrt(n / (n - 1)) / m;
  return kNaN;
}

json stats_block(const std::vector<RunEvidence>& runs, const json& entry) {
  json jr = json::array();
  std::vector<double> perfs, warm, slice_pct;
  int unsteady = 0, until = 0;
  for (const auto& r : runs) {
    jr.push_back({{"file", r.file},
                  {"device", r.device},
                  {"perf", num_or_null(r.perf)},
                  {"slice_ci95", interval_json(r.slice_ci)},
                  {"warmup_s", num_or_null(r.warmup_s)},
                  {"steady", r.steady},
                  {"reason", r.reason},
                  {"until_stable", r.until_stable},
                  {"stopped_stable", r.stopped_stable}});
    if (std::isfinite(r.perf)) perfs.push_back(r.perf);
    if (std::isfinite(r.warmup_s)) warm.push_back(r.warmup_s);
    if (r.slice_ci.valid() && r.perf > 0) slice_pct.push_back((r.slice_ci.hi - r.slice_ci.lo) / 2 / r.perf * 100);
    unsteady += r.steady ? 0 : 1;
    until += r.until_stable ? 1 : 0;
  }
  json warmup;
  if (!warm.empty()) warmup = {{"median", median_of(warm)}, {"max", *std::max_element(warm.begin(), warm.end())}};
  return {{"perf_ci95", interval_json(t_interval(perfs))},
          {"runs", jr},
          {"warmup_s", warmup},
          {"unsteady_runs", unsteady},
          {"until_stable_runs", until},
          {"slice_ci95_pct", num_or_null(median_of(slice_pct))},
          {"noise_pct", num_or_null(noise_fraction(entry) * 100)},
          {"robust_noise_pct", num_or_null(robust_noise(entry).cv * 100)},
          {"fairness", fairness_of(sub(entry, "pergpu"))}};
}

void fill_row_evidence(ReportRow& r, const json& entry) {
  const json& st = stats_of(entry);
  const json& train = sub(entry, "train");
  // Recomputed from the runs (a summary of an older milarun may hold a bootstrap interval).
  const std::vector<double> runs = run_values(entry);
  const double n = num(train, "n");
  if (runs.size() >= kMinRunsForInterval) {
    r.ci = t_interval(runs);
    r.ci_method = "t";
  } else if (runs.empty() && n >= 2) {
    r.ci = t_mean_ci(n, r.perf, sample_sd_from_pop(n, num(train, "std")));
    r.ci_method = "t (n/mean/std)";
  }
  if (!r.ci.valid()) {
    r.ci = no_interval();
    r.ci_method = std::isfinite(r.perf) ? "too few runs" : "";
  }
  r.noise_pct = noise_fraction(entry) * 100;
  const json fair = fairness_of(sub(entry, "pergpu"));
  if (fair.is_object()) {
    r.dev_min = fair["min"];
    r.dev_max = fair["max"];
    r.worst_share = fair["worst_share"];
    r.worst_device = fair["worst_device"];
  }
  if (!st.is_object()) return;
  const json& warm = sub(st, "warmup_s");
  r.warmup_median_s = num(warm, "median");
  r.warmup_max_s = num(warm, "max");
  r.slice_ci_pct = num(st, "slice_ci95_pct");
  if (st.contains("runs") && st["runs"].is_array())
    for (const auto& run : st["runs"]) {
      if (!run.is_object()) continue;
      const std::string file = sub(run, "file").is_string() ? run["file"].get<std::string>() : "?";
      if (run.value("steady", json(true)) == json(false))
        r.unsteady.push_back(file + ": " +
                             (sub(run, "reason").is_string() ? run["reason"].get<std::string>() : "not steady"));
      if (run.value("until_stable", json(false)) == json(true))
        r.until_stable.push_back(file + (run.value("stopped_stable", json(false)) == json(true)
                                             ? " (stopped when steady)"
                                             : " (never steady: ran to --max-count)"));
    }
  r.unsteady_runs = static_cast<int>(r.unsteady.size());
  r.until_stable_runs = static_cast<int>(r.until_stable.size());
}

std::vector<std::string> inventory_differences(const json& summary, const json& baseline) {
  auto collect = [](const json& s) {
    json acc = json::object();
    if (!s.is_object()) return acc;
    for (const auto& [name, entry] : s.items())
      if (entry.is_object() && entry.contains("inventory") && entry["inventory"].is_object())
        for (const auto& [k, vals] : entry["inventory"].items())
          for (const auto& v : vals) merge_inventory(acc, {{k, v}});
    return acc;
  };
  const json a = collect(summary), b = collect(baseline);
  std::vector<std::string> out;
  if (a.empty() || b.empty()) {
    out.push_back(
        fmt::format("no inventory on {} (a summary of the original milabench?): GPU model, "
                    "driver, libtorch version, CPU count, isolation and datasets cannot be checked",
                    a.empty() && b.empty() ? "either side"
                    : a.empty()            ? "this side"
                                           : "the baseline"));
    return out;
  }
  auto list = [](const json& acc, const std::string& k) {
    if (!acc.contains(k)) return std::string("(not recorded)");
    std::string s;
    for (const auto& v : acc[k]) s += (s.empty() ? "" : " | ") + v.get<std::string>();
    return s;
  };
  for (const auto& k : kInventoryKeys) {
    const std::string va = list(a, k), vb = list(b, k);
    if (va != vb) out.push_back(fmt::format("{}: {} vs baseline {}", k, va, vb));
  }
  return out;
}

}  // namespace milabench
