#include "report/summary_flags.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "results/argument_words.hpp"
#include "results/input_checks.hpp"

namespace milabench {
using nlohmann::json;

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out.empty() ? "(no arguments)" : out;
}

}  // namespace

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
  auto value = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  contended_[label] = {{"cpu_share", value(r.foreign_cpu_share)},
                       {"other_gpu_processes", value(r.other_gpu_processes)}};
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
  if (argument_sets_.size() < 2) return;
  std::string list;
  for (const auto& s : argument_sets_) list += (list.empty() ? "(" : "), (") + joined(s);
  warnings.push_back(terminal_safe(fmt::format(
      "warning: {} averages runs made with {} different argument lists: {}); summarise each set of runs in its own "
      "folder",
      test, argument_sets_.size(), list)));
}

std::vector<std::string> summary_flag_lines(const json& summary) {
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
    if (e.contains("contended_runs") && e["contended_runs"].is_object() && !e["contended_runs"].empty()) {
      double cpu = 0;
      int gpu = 0;
      for (const auto& [file, c] : e["contended_runs"].items()) {
        if (!c.is_object()) continue;
        if (const json v = c.value("cpu_share", json()); v.is_number()) cpu = std::max(cpu, v.get<double>());
        if (const json v = c.value("other_gpu_processes", json()); v.is_number_integer())
          gpu = std::max(gpu, v.get<int>());
      }
      std::string what;
      if (cpu > 0) what = fmt::format("other processes used up to {:.0f}% of their CPUs' time", cpu * 100);
      if (gpu > 0)
        what += fmt::format("{}up to {} other process(es) held a GPU of theirs", what.empty() ? "" : "; ", gpu);
      lines.push_back(fmt::format(
          "CONTENDED: {} has {} run(s) that shared their devices during the summary window ({}): their rates may "
          "understate this machine",
          name, e["contended_runs"].size(), what));
    }
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
