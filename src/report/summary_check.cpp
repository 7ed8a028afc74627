#include "report/summary_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "results/input_checks.hpp"
#include "results/json_keys.hpp"

namespace milabench {
using nlohmann::json;

namespace {

std::string shown(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return terminal_safe(s.size() > 40 ? s.substr(0, 40) + "..." : s);
}

// "" when `v` is a finite number in [lo, hi].
std::string range_problem(const json& v, double lo, double hi, bool lo_open, bool whole) {
  if (!v.is_number()) return fmt::format("{} is not a number", shown(v));
  const double d = v.get<double>();
  if (!std::isfinite(d)) return "is not finite";
  if (lo_open ? !(d > lo) : !(d >= lo)) return fmt::format("{} is {}", shown(v), lo_open ? "not positive" : "negative");
  if (d > hi) return fmt::format("{} is over {:g}, not a plausible value", shown(v), hi);
  if (whole && d != std::floor(d)) return fmt::format("{} is not a whole number", shown(v));
  return "";
}

const std::vector<std::string> kStatsKeys = {"n", "min", "max", "mean", "std"};
// What `milarun summary` writes per test (report/summary.hpp, summary_flags.hpp) and the baselines hold.
const std::vector<std::string> kEntryKeys = {
    "n",          "failures",       "total",     "train",          "pergpu",      "peak_memory",
    "energy",     "stats",          "inventory", "failure_kinds",  "arguments",   "duplicate_runs",
    "count_unit", "images_skipped", "model",     "contended_runs", "mixed_setups"};

// "" when every key of object `o` is known; else the first unknown one.
std::string keys_problem(const json& o, const std::vector<std::string>& known) {
  for (const auto& [k, v] : o.items())
    if (std::find(known.begin(), known.end(), k) == known.end()) return unknown_key_text(k, known);
  return "";
}

// Checks one stats block {n, mean, std, min, max} (rates in examples/s).
std::string stats_problem(const json& s, const std::string& where) {
  if (!s.is_object()) return fmt::format("\"{}\" must be an object or null", where);
  if (auto p = keys_problem(s, kStatsKeys); !p.empty()) return fmt::format("\"{}\": {}", where, p);
  if (s.contains("n") && s["n"].is_number() && s["n"].get<double>() == 0)
    return fmt::format("\"{}.n\" is 0, yet it has a mean", where);
  if (!s.contains("mean")) return fmt::format("\"{}\" has no \"mean\"", where);
  if (auto p = range_problem(s["mean"], 0, kMaxPlausibleRate, true, false); !p.empty())
    return fmt::format("\"{}.mean\" {}", where, p);
  for (const char* key : {"std", "min", "max"})
    if (s.contains(key) && !s[key].is_null())
      if (auto p = range_problem(s[key], 0, kMaxPlausibleRate, false, false); !p.empty())
        return fmt::format("\"{}.{}\" {}", where, key, p);
  if (s.contains("n") && !s["n"].is_null())
    if (auto p = range_problem(s["n"], 0, 1e9, false, true); !p.empty()) return fmt::format("\"{}.n\" {}", where, p);
  if (s.value("min", json()).is_number() && s.value("max", json()).is_number() &&
      s["min"].get<double>() > s["max"].get<double>())
    return fmt::format("\"{}.min\" is above its max", where);
  return "";
}

}  // namespace

std::string weights_problem(const json& weights, const std::string& path) {
  if (!weights.is_object()) return fmt::format("{}: expected a JSON object {{test: {{\"weight\": w}}}}", path);
  for (const auto& [name, entry] : weights.items()) {
    if (terminal_safe(name) != name)
      return fmt::format("{}: test name \"{}\" holds control characters", path, terminal_safe(name));
    if (entry.is_object())
      if (auto p = keys_problem(entry, {"weight"}); !p.empty())
        return fmt::format("{}: test \"{}\": {}", path, terminal_safe(name), p);
    const json w = entry.is_object() ? entry.value("weight", json()) : entry;
    if (entry.is_object() && !entry.contains("weight"))
      return fmt::format("{}: test \"{}\" has no \"weight\" — give a number >= 0", path, terminal_safe(name));
    if (auto p = range_problem(w, 0, kMaxPlausibleWeight, false, false); !p.empty())
      return fmt::format("{}: test \"{}\": weight {} — give a number from 0 to {:g}", path, terminal_safe(name), p,
                         kMaxPlausibleWeight);
  }
  return "";
}

std::string summary_problem(const json& summary, const std::string& path) {
  if (!summary.is_object()) return fmt::format("{}: expected a JSON object of tests (a summary)", path);
  for (const auto& [name, e] : summary.items()) {
    const std::string test = terminal_safe(name);
    auto fail = [&](const std::string& what) {
      return fmt::format("{}: test \"{}\": {} (fix or regenerate it with milarun summary)", path, test, what);
    };
    if (test != name) return fail("the test name holds control characters");
    if (!e.is_object()) return fail("the entry is not an object");
    if (auto p = keys_problem(e, kEntryKeys); !p.empty()) return fail(p);
    if (auto p = range_problem(e.value("n", json()), 0, 1e9, false, true); !p.empty()) return fail("\"n\" " + p);
    if (auto p = range_problem(e.value("failures", json()), 0, 1e9, false, true); !p.empty())
      return fail("\"failures\" " + p);
    const double n = e["n"].get<double>(), failures = e["failures"].get<double>();
    if (failures > n) return fail(fmt::format("{:g} failures out of {:g} runs", failures, n));
    const json train = e.value("train", json());
    if (train.is_null()) {
      if (failures < n)
        return fail(fmt::format("no \"train\" block although {:g} of {:g} runs succeeded", n - failures, n));
    } else if (auto p = stats_problem(train, "train"); !p.empty()) {
      return fail(p);
    } else if (failures == n) {
      return fail(n == 0 ? std::string("a \"train\" mean with \"n\" 0 (no run)")
                         : fmt::format("a \"train\" mean although all {:g} runs failed", n));
    }
    if (e.contains("pergpu") && !e["pergpu"].is_null()) {
      if (!e["pergpu"].is_object()) return fail("\"pergpu\" must be an object");
      for (const auto& [dev, s] : e["pergpu"].items())
        if (auto p = stats_problem(s, "pergpu." + terminal_safe(dev)); !p.empty()) return fail(p);
    }
  }
  return "";
}

}  // namespace milabench
