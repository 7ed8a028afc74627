#include "report/marks.hpp"

#include <algorithm>
#include <set>

#include "results/stand_ins.hpp"

namespace milabench {

namespace {

std::string joined(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// Names in `a` and not in `b` (both sorted).
std::vector<std::string> only_in(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

std::vector<std::string> inventory_names(const nlohmann::json& entry, const std::string& key) {
  std::set<std::string> names;
  if (!entry.is_object() || !entry.contains("inventory") || !entry["inventory"].is_object()) return {};
  const nlohmann::json& inv = entry["inventory"];
  if (!inv.contains(key) || !inv[key].is_array()) return {};
  for (const auto& v : inv[key]) {
    if (!v.is_string()) continue;
    const std::string s = v.get<std::string>();
    for (std::size_t at = 0; at <= s.size();) {
      std::size_t comma = std::min(s.find(',', at), s.size());
      std::string name = s.substr(at, comma - at);
      if (!name.empty() && name != "none") names.insert(name);
      at = comma + 1;
    }
  }
  return {names.begin(), names.end()};
}

std::string row_marks(const ReportRow& r) {
  std::string out;
  if (!r.shortcuts.empty()) out += "[less work: " + joined(r.shortcuts) + "]";
  if (!r.stand_ins.empty()) out += std::string(out.empty() ? "" : " ") + "[stand-in: " + joined(r.stand_ins) + "]";
  if (r.contended_runs > 0)
    out += std::string(out.empty() ? "" : " ") + "[contended: " + std::to_string(r.contended_runs) + " run(s)]";
  if (!r.mixed_setups.empty()) out += std::string(out.empty() ? "" : " ") + "[mixed: " + joined(r.mixed_setups) + "]";
  return out;
}

std::string compare_mark(const ReportRow& r) {
  std::vector<std::string> parts;
  const auto one_side = [&](const std::vector<std::string>& here, const std::vector<std::string>& there,
                            const std::string& what) {
    if (const auto ours = only_in(here, there); !ours.empty())
      parts.push_back(what + " on this side only: " + joined(ours));
    if (const auto theirs = only_in(there, here); !theirs.empty())
      parts.push_back(what + " on the baseline's side only: " + joined(theirs));
  };
  one_side(r.stand_ins, r.base_stand_ins, "stand-in");
  one_side(r.shortcuts, r.base_shortcuts, "opt-in shortcut");
  // Both sides must record their arguments: the 2020 baselines do not.
  if (!r.arguments.empty() && !r.base_arguments.empty() && r.arguments != r.base_arguments)
    parts.push_back("arguments (" + joined(r.arguments, "), (") + ") here, (" + joined(r.base_arguments, "), (") +
                    ") in the baseline");
  return joined(parts, "; ");
}

std::vector<std::string> fidelity_lines(const ReportData& d) {
  std::vector<std::string> lines;
  for (const auto& r : d.rows) {
    if (!r.shortcuts.empty())
      lines.push_back("LESS WORK THAN THE ORIGINAL: " + r.name + " ran with opt-in shortcut(s) " + joined(r.shortcuts) +
                      " (docs/fidelity.md)");
    if (!r.stand_ins.empty()) {
      std::vector<std::string> what;
      for (const auto& s : r.stand_ins) what.push_back(s + " (" + stand_in_phrase(s) + ")");
      lines.push_back("STAND-IN: " + r.name + " ran on " + joined(what, "; ") +
                      ": its rate is not comparable with the original's (docs/workloads.md)");
    }
  }
  return lines;
}

}  // namespace milabench
