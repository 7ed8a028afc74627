// Small readers shared by the evidence files: numbers and sub-objects of a
// summary entry that may be missing or of the wrong type (never throw).
#pragma once
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace milabench::evidence_json {

// obj[key] as a number; NaN when obj is not an object or the key is missing or not a number.
inline double num(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return std::numeric_limits<double>::quiet_NaN();
  return obj[key].get<double>();
}

// obj[key] when obj is an object holding it, else null.
inline const nlohmann::json& sub(const nlohmann::json& obj, const char* key) {
  static const nlohmann::json kNull;
  if (obj.is_object()) {
    auto it = obj.find(key);
    if (it != obj.end()) return *it;
  }
  return kNull;
}

// The "stats" block of a summary entry, or null.
inline const nlohmann::json& stats_of(const nlohmann::json& entry) {
  static const nlohmann::json kNull;
  return sub(entry, "stats").is_object() ? sub(entry, "stats") : kNull;
}

// (device, perf) of each run recorded in a summary entry's stats (empty when none).
inline std::vector<std::pair<std::string, double>> device_runs(const nlohmann::json& entry) {
  std::vector<std::pair<std::string, double>> out;
  const nlohmann::json& runs = sub(stats_of(entry), "runs");
  if (!runs.is_array()) return out;
  for (const auto& r : runs) {
    const double p = num(r, "perf");
    if (!std::isfinite(p)) continue;
    out.push_back({sub(r, "device").is_string() ? r["device"].get<std::string>() : "", p});
  }
  return out;
}

// Per-run perf values of a summary entry (empty when none).
inline std::vector<double> run_values(const nlohmann::json& entry) {
  std::vector<double> v;
  for (const auto& [dev, p] : device_runs(entry)) v.push_back(p);
  return v;
}

// Sample sd from a summary's population std of n values (NaN when n < 2).
inline double sample_sd_from_pop(double n, double pop_std) {
  return n >= 2 ? pop_std * std::sqrt(n / (n - 1)) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace milabench::evidence_json
