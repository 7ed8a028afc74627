#include "run/run_app.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>
#include <regex>

namespace milabench {

std::string normalize_number_word(const std::string& word) {
  static const std::regex numeric("^-?[0-9][0-9_]*(\\.[0-9_]+)?([eE][-+]?[0-9]+)?$");
  if (word.find('_') == std::string::npos || !std::regex_match(word, numeric)) return word;
  std::string out;
  for (char c : word)
    if (c != '_') out += c;
  return out;
}

std::unique_ptr<CLI::App> configure_run_app(const WorkloadInfo& info, Workload& workload, RunSettings& s) {
  auto app = std::make_unique<CLI::App>(
      fmt::format("{} ({}; counts {})", info.name, info.experiments.front(), info.count_unit),
      "milarun run " + info.name + " --");
  s.meter.max_count = info.default_max_count;
  MeterOptions& m = s.meter;
  app->add_option("--max-count", m.max_count, "stop after this many examples (" + info.count_unit + "; 0 = no limit)")
      ->capture_default_str();
  app->add_option("--min-duration", m.min_duration,
                  "seconds of timed training to reach before stopping, even past --max-count (0 = none)")
      ->capture_default_str();
  app->add_option("--sample-duration", m.sample_duration, "seconds per rate slice")->capture_default_str();
  app->add_flag("--until-stable", m.until_stable,
                "also stop once the rate is steady over the summary window (docs/statistics.md)");
  // The original's init_torch arguments, accepted by every workload.
  TorchArgs& t = s.torch;
  app->add_flag("--cuda", t.cuda, "train on the GPU (default: when one is visible)");
  app->add_flag("--no-cuda", t.no_cuda, "train on the CPU");
  app->add_option("--seed", t.seed, "random seed")->capture_default_str();
  app->add_option("--workers", t.workers, "torch's intra-op threads (not given: 1) and the workload's loader workers");
  workload.add_options(*app);
  return app;
}

int parse_run_args(CLI::App& app, const WorkloadInfo& info, const RunSettings& s, const std::vector<std::string>& args,
                   std::ostream& out, std::ostream& err) {
  std::vector<std::string> rev;
  for (auto it = args.rbegin(); it != args.rend(); ++it) rev.push_back(normalize_number_word(*it));
  try {
    app.parse(rev);  // CLI11 consumes a reversed vector
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << fmt::format("milarun run {}: {} — `milarun run {} -- --help` lists its arguments\n", info.name, e.what(),
                       info.name);
    return 2;
  }
  auto bad = [&](const std::string& what) {
    err << fmt::format("milarun run {}: {}\n", info.name, what);
    return 2;
  };
  const MeterOptions& m = s.meter;
  if (!(m.sample_duration > 0) || !std::isfinite(m.sample_duration))  // also refuses nan and inf
    return bad(fmt::format("--sample-duration must be a positive number of seconds, got {}", m.sample_duration));
  if (m.max_count < 0) return bad(fmt::format("--max-count must be >= 0, got {}", m.max_count));
  if (!(m.min_duration >= 0) || !std::isfinite(m.min_duration))
    return bad(fmt::format("--min-duration must be a number of seconds >= 0, got {}", m.min_duration));
  if (s.torch.workers < 0) return bad(fmt::format("--workers must be >= 0, got {}", s.torch.workers));
  if (s.torch.cuda && s.torch.no_cuda) return bad("--cuda and --no-cuda together: give one");
  return -1;
}

}  // namespace milabench
