#include "report/run_series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <set>

#include "measure/steady_state.hpp"
#include "measure/window_rule.hpp"
#include "report/report_data.hpp"

namespace milabench {
using nlohmann::json;

const std::vector<std::string> kContextKeys = {"date",    "host",      "cpu",    "cpus",     "ram",
                                               "gpus",    "driver",    "kernel", "libtorch", "milarun",
                                               "profile", "isolation", "data"};

namespace {

const json& at(const json& obj, const char* key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

double number(const json& v) { return v.is_number() ? v.get<double>() : NAN; }

std::string text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

// "2026-12-03 12:30:01" from the "<YYYYmmdd-HHMMSS-ffffff>.json" tail of a
// result file name (the launching machine's local time); "" when absent.
std::string date_of_file(const std::string& file) {
  const size_t end = file.rfind(".json");
  if (end == std::string::npos || end < 22) return "";
  const std::string s = file.substr(end - 22, 22);
  const std::string digits = s.substr(0, 8) + s.substr(9, 6) + s.substr(16, 6);
  if (s[8] != '-' || s[15] != '-' || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return "";
  return fmt::format("{}-{}-{} {}:{}:{}", s.substr(0, 4), s.substr(4, 2), s.substr(6, 2), s.substr(9, 2),
                     s.substr(11, 2), s.substr(13, 2));
}

// The milarun version, wherever the result records it.
std::string milarun_version(const json& doc) {
  for (const json* v : {&at(doc, "milarun_version"), &at(doc, "version"), &at(at(doc, "inventory"), "milarun_version"),
                        &at(at(doc, "milarun"), "version")})
    if (v->is_string() && !v->get<std::string>().empty()) return v->get<std::string>();
  return "";
}

std::map<std::string, std::string> facts_of(const std::string& file, const json& doc) {
  std::map<std::string, std::string> f;
  auto put = [&](const char* key, const std::string& v) {
    if (!v.empty()) f[key] = v;
  };
  const json& inv = at(doc, "inventory");
  put("date", date_of_file(file));
  put("host", text(at(inv, "hostname")).empty() ? text(at(doc, "hostname")) : text(at(inv, "hostname")));
  put("cpu", text(at(inv, "cpu_model")));
  put("cpus", text(at(inv, "cpu_count")));
  const double ram = number(at(inv, "ram_mb"));
  if (ram > 0) put("ram", fmt::format("{:.1f} GiB", ram / 1024));
  if (at(inv, "gpus").is_array()) {
    std::string g;
    for (const auto& x : at(inv, "gpus")) g += (g.empty() ? "" : ", ") + text(x);
    put("gpus", g.empty() ? "none" : g);
  }
  put("driver", text(at(inv, "driver")));
  put("kernel", text(at(inv, "kernel")));
  put("libtorch", text(at(inv, "libtorch_version")));
  put("milarun", milarun_version(doc));
  const json& iso = at(doc, "isolation");
  std::string i = text(at(iso, "kind"));
  if (!text(at(iso, "cgroup")).empty()) i += " " + text(at(iso, "cgroup"));
  if (!text(at(iso, "cpu_list")).empty()) i += " (cpus " + text(at(iso, "cpu_list")) + ")";
  put("isolation", i);
  const json& ds = at(doc, "dataset");
  if (ds.is_object()) {
    const json syn = at(ds, "synthetic");
    put("data", (text(at(ds, "name")).empty() ? "?" : text(at(ds, "name"))) + (syn == json(true)    ? " (synthetic)"
                                                                               : syn == json(false) ? " (real)"
                                                                                                    : ""));
  }
  return f;
}

}  // namespace

void append_run_series(std::vector<RateSeries>& out, const std::string& file, const json& doc) {
  const json& timings = at(doc, "timings");
  if (!timings.is_object()) return;
  const auto facts = facts_of(file, doc);
  for (const auto& [key, t] : timings.items()) {
    if (key.rfind("train", 0) != 0 || !t.is_object()) continue;
    RateSeries s;
    s.label = file + (key == "train" ? "" : ":" + key);
    s.device = text(at(doc, "device"));
    if (at(t, "rates").is_array())
      for (const auto& x : at(t, "rates")) s.rates.push_back(number(x));
    if (number(at(t, "sample_duration")) > 0) s.sample_duration = number(at(t, "sample_duration"));
    // 0 is the meter's default (no --min-duration): only a positive value was asked for.
    if (const double m = number(at(t, "min_duration")); m > 0) s.min_duration = m;
    if (const double e = number(at(t, "extended_s")); e > 0) s.extended_s = e;
    s.measured_s = number(at(t, "time"));
    s.count_unit = text(at(doc, "count_unit"));
    s.success = at(doc, "success") == json(true);
    s.facts = facts;
    out.push_back(std::move(s));
  }
}

std::string WindowFlag::reason() const {
  if (too_short)
    return fmt::format("only {} slices ({:.1f} s): the window rates[-20:-2] needs 20", slices,
                       slices * sample_duration);
  if (warm_in_window > 0)
    return fmt::format("warm-up ({:.1f} s) reaches {} slice{} into the window rates[-20:-2]", warmup_s, warm_in_window,
                       warm_in_window == 1 ? "" : "s");
  return "";
}

WindowFlag check_summary_window(const std::string& test, const RateSeries& s) {
  SteadyOptions so;
  so.sample_duration = s.sample_duration;
  return check_summary_window(test, s, warmup_seconds(s.rates, so));
}

WindowFlag check_summary_window(const std::string& test, const RateSeries& s, double warmup_s) {
  const WindowState w = summary_window_state(static_cast<int>(s.rates.size()), warmup_s, s.sample_duration);
  WindowFlag f;
  f.test = test;
  f.label = s.label;
  f.device = s.device;
  f.min_duration = s.min_duration;
  f.extended_s = s.extended_s;
  f.sample_duration = s.sample_duration;
  f.measured_s = s.measured_s;
  f.slices = w.slices;
  f.window_begin = w.window_begin;
  f.too_short = w.too_short;
  f.warmup_s = w.warmup_s;
  f.warm_in_window = w.warm_in_window;
  return f;
}

void attach_runs(ReportData& d, const std::map<std::string, std::vector<RateSeries>>& series) {
  d.has_runs = true;
  std::map<std::string, std::set<std::string>> ctx;
  for (const auto& [test, runs] : series) {
    ReportRow* row = nullptr;
    for (auto& r : d.rows)
      if (r.name == test) row = &r;
    for (const auto& s : runs) {
      if (row && row->count_unit.empty()) row->count_unit = s.count_unit;
      for (const auto& [k, v] : s.facts) ctx[k].insert(v);
      if (!s.success) continue;
      const WindowFlag f = check_summary_window(test, s);
      if (row && f.flagged()) row->window_flags++;
      if (f.flagged() || std::isfinite(f.min_duration) || f.extended_s > 0) d.window_flags.push_back(f);
    }
  }
  for (auto& [k, vals] : ctx) {  // the runs' facts replace the summary's inventory
    std::vector<std::string> v(vals.begin(), vals.end());
    if (k == "date" && v.size() > 1) v = {v.front() + " to " + v.back()};
    d.context[k] = v;
  }
}

void print_window_flags(const ReportData& d, std::ostream& out) {
  bool flagged = false, min_dur = false, extended = false;
  for (const auto& f : d.window_flags)
    flagged |= f.flagged(), min_dur |= std::isfinite(f.min_duration), extended |= f.extended_s > 0;
  if (flagged) {
    out << "\nruns whose summary window (rates[-20:-2], the last 10 s minus the last second) is short or holds "
           "warm-up;\nmeasure longer (milarun jobs --min-duration S) to trust their perf:\n";
    for (const auto& f : d.window_flags)
      if (f.flagged()) out << "  " << f.test << "  " << f.label << ": " << f.reason() << "\n";
  }
  if (extended) {
    out << "\nruns measured past --max-count until their summary window held only steady slices (the window "
           "rule;\n--stop-at-count stops at the count, as the original):\n";
    for (const auto& f : d.window_flags)
      if (f.extended_s > 0)
        out << fmt::format("  {}  {}: +{:.1f} s past the count ({} slices)\n", f.test, f.label, f.extended_s, f.slices);
  }
  if (min_dur) {
    out << "\nruns measured with --min-duration:\n";
    for (const auto& f : d.window_flags)
      if (std::isfinite(f.min_duration))
        out << fmt::format("  {}  {}: --min-duration {:g} s (measured {} s, {} slices)\n", f.test, f.label,
                           f.min_duration, std::isfinite(f.measured_s) ? fmt::format("{:.1f}", f.measured_s) : "?",
                           f.slices);
  }
}

}  // namespace milabench
