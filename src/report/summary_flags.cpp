#include "report/summary_flags.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/evidence.hpp"
#include "results/argument_words.hpp"
#include "results/input_checks.hpp"
#include "results/stand_ins.hpp"

namespace milabench {
using nlohmann::json;

const std::vector<std::string>& mixed_setup_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = kInventoryKeys;
    for (const char* more : {"shortcuts", kStandInsKey, "milarun"}) k.push_back(more);
    return k;
  }();
  return keys;
}

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out.empty() ? "(no arguments)" : out;
}

// What a test's contended runs lost (its summary's "contended_runs"): the
// largest reading over its runs of each kind that is over its threshold.
std::string contended_runs_text(const json& runs) {
  auto reading = [](const json& c, const char* key) {
    const json v = c.is_object() ? c.value(key, json()) : json();
    return v.is_number() ? v.get<double>() : 0.0;
  };
  auto most = [&](const char* key, const char* only_with = nullptr) {  // `only_with`: its runs' stalls were theirs
    double m = 0;
    for (const auto& [file, c] : runs.items())
      if (!only_with || reading(c, only_with) >= kContendedMajorFaultsPerS) m = std::max(m, reading(c, key));
    return m;
  };
  std::vector<std::string> what;
  auto share = [&](double m, const char* text) {
    if (m > kContendedShare) what.push_back(fmt::format(fmt::runtime(text), m * 100));
  };
  share(most("cpu_share"), "other processes used up to {:.0f}% of their CPUs' time");
  share(most("sibling_cpu_share"),
        "other processes kept their cores' other hyperthreads busy up to {:.0f}% of the time");
  share(most("memory_stall_share", "major_faults_per_s"),
        "they read pages back from disk while memory stalls took up to {:.0f}% of the time");
  share(most("cpu_throttle_share"), "their CPUs ran throttled for heat up to {:.0f}% of the time");
  share(most("gpu_slowdown_share"), "a GPU of theirs ran slowed down (heat or power brake) up to {:.0f}% of the time");
  share(most("stopped_share"), "their process was stopped, not running at all, up to {:.0f}% of the time");
  if (const double n = most("other_gpu_processes"); n > 0)
    what.push_back(fmt::format("up to {:.0f} other process(es) held a GPU of theirs", n));
  std::string out;
  for (const auto& w : what) out += (out.empty() ? "" : "; ") + w;
  return out;
}

// "gpu_model: A100 | V100; libtorch_version: 1.13.1 | 2.6.0" from a summary's "mixed_setups".
std::string mixed_setups_text(const json& mixed) {
  std::string out;
  for (const auto& [key, values] : mixed.items()) {
    std::string list;
    if (values.is_array())
      for (const auto& v : values)
        list += (list.empty() ? "" : " | ") + (v.is_string() ? v.get<std::string>() : v.dump());
    out += (out.empty() ? "" : "; ") + key + ": " + list;
  }
  return out;
}

// The values of a summary entry's inventory `key` other than `usual`.
std::vector<std::string> inventory_values_but(const json& entry, const char* key, const char* usual) {
  std::vector<std::string> out;
  const json inv = entry.value("inventory", json());
  if (inv.is_object() && inv.value(key, json()).is_array())
    for (const auto& v : inv[key])
      if (v.is_string() && v.get<std::string>() != usual) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

void SummaryFlags::add_setup(const json& inventory) {
  if (!inventory.is_object()) return;
  for (const auto& k : mixed_setup_keys())
    if (const json v = inventory.value(k, json()); v.is_string()) setups_[k].insert(v.get<std::string>());
}

void SummaryFlags::add(const ResultRecord& r, const std::string& label, std::vector<std::string>& warnings) {
  std::vector<std::string> words;
  for (const auto& a : r.arguments) words.push_back(normalize_number_word(a));
  argument_sets_.insert(words);
  const std::string device = r.pergpu_device();
  const std::string key = r.job_id + "@" + device;
  auto [it, inserted] = first_.emplace(key, label);
  if (inserted) return;
  duplicates_.push_back(fmt::format("{} repeats {}", label, it->second));
  warnings.push_back(terminal_safe(fmt::format(
      "warning: {} and {} are both results of {} run J{}{}: two suites in one folder, or folders merged? Both "
      "are counted; the summary and the report flag the test",
      it->second, label, r.group(), r.job_id, device.empty() ? "" : " on device " + device)));
}

void SummaryFlags::add_contended(const ResultRecord& r, const std::string& label, std::vector<std::string>& warnings) {
  if (!r.contended()) return;
  contended_[label] = contention_readings(r);
  warnings.push_back(terminal_safe(fmt::format(
      "warning: {}: {}; it is counted, but its rate may understate this machine: run it again on devices nothing "
      "else uses",
      label, contention_text(r))));
}

void SummaryFlags::write(const std::string& test, json& entry, std::vector<std::string>& warnings) const {
  json sets = json::array();
  for (const auto& s : argument_sets_) sets.push_back(s);
  entry["arguments"] = sets;
  if (skipped_ > 0) entry["images_skipped"] = skipped_;
  if (!duplicates_.empty()) entry["duplicate_runs"] = duplicates_;
  if (!contended_.empty()) entry["contended_runs"] = contended_;
  json mixed = json::object();
  for (const auto& [k, values] : setups_)
    if (values.size() > 1) mixed[k] = std::vector<std::string>(values.begin(), values.end());
  if (!mixed.empty()) {
    entry["mixed_setups"] = mixed;
    warnings.push_back(terminal_safe(fmt::format(
        "warning: {} averages runs made on different machines or set-ups ({}); its mean describes none of them: "
        "summarise each set-up's runs in its own folder",
        test, mixed_setups_text(mixed))));
  }
  if (argument_sets_.size() < 2) return;
  std::string list;
  for (const auto& s : argument_sets_) list += (list.empty() ? "(" : "), (") + joined(s);
  warnings.push_back(terminal_safe(fmt::format(
      "warning: {} averages runs made with {} different argument lists: {}); summarise each set of runs in its own "
      "folder",
      test, argument_sets_.size(), list)));
}

std::vector<std::string> summary_flag_lines(const json& summary, const std::string& machine) {
  std::vector<std::string> lines;
  if (!summary.is_object()) return lines;
  for (const auto& [test, e] : summary.items()) {
    if (!e.is_object()) continue;
    const std::string name = terminal_safe(test);
    if (e.contains("duplicate_runs") && e["duplicate_runs"].is_array() && !e["duplicate_runs"].empty())
      lines.push_back(fmt::format(
          "DUPLICATE RESULTS: {} has {} result(s) of a run (job id, device) already counted: two suites in one "
          "folder, or folders merged; its n and perf count every copy",
          name, e["duplicate_runs"].size()));
    if (e.contains("images_skipped") && e["images_skipped"].is_number() && e["images_skipped"].get<double>() > 0)
      lines.push_back(fmt::format(
          "SKIPPED INPUTS: {} skipped {:g} unreadable input(s) over its runs (a run past {:g}% counts as failed, "
          "bad_data); its perf counts only what was read",
          name, e["images_skipped"].get<double>(), kMaxSkippedInputShare * 100));
    if (e.contains("contended_runs") && e["contended_runs"].is_object() && !e["contended_runs"].empty())
      lines.push_back(fmt::format(
          "CONTENDED: {} has {} run(s) that did not have their devices to themselves during the summary window "
          "({}): their rates may understate {}",
          name, e["contended_runs"].size(), contended_runs_text(e["contended_runs"]), machine));
    if (const json m = e.value("mixed_setups", json()); m.is_object() && !m.empty())
      lines.push_back(terminal_safe(fmt::format(
          "MIXED SET-UPS: {} averages runs made on different machines or set-ups ({}): its mean describes none "
          "of them",
          name, mixed_setups_text(m))));
    for (const auto& v : inventory_values_but(e, "gpu_power_limit", kDefaultPowerLimit))
      lines.push_back(terminal_safe(
          fmt::format("POWER LIMIT: {} ran on a machine whose GPUs' power limit was lowered ({}): its rates show {} as "
                      "configured, below what its GPUs do at their default limit",
                      name, v, machine)));
    for (const auto& v : inventory_values_but(e, "gpu_mig", kMigOff))
      lines.push_back(terminal_safe(fmt::format(
          "MIG: {} ran on a machine whose GPUs are split into MIG instances ({}): a run there has one instance, a "
          "fraction of the GPU its inventory names, so its rate is not that GPU's",
          name, v)));
    if (e.contains("arguments") && e["arguments"].is_array() && e["arguments"].size() > 1) {
      std::string list;
      for (const auto& s : e["arguments"]) {
        std::vector<std::string> words;
        if (s.is_array())
          for (const auto& w : s) words.push_back(w.is_string() ? w.get<std::string>() : w.dump());
        list += (list.empty() ? "(" : "), (") + joined(words);
      }
      lines.push_back(
          terminal_safe(fmt::format("MIXED ARGUMENTS: {} averages runs made with {} different argument lists: {})",
                                    name, e["arguments"].size(), list)));
    }
  }
  return lines;
}

}  // namespace milabench
