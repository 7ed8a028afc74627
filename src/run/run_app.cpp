#include "run/run_app.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <regex>

#include "data/dataset.hpp"
#include "results/argument_words.hpp"
#include "results/input_checks.hpp"

namespace milabench {

std::unique_ptr<CLI::App> configure_run_app(const WorkloadInfo& info, Workload& workload, RunSettings& s) {
  auto app = std::make_unique<CLI::App>(
      fmt::format("{} ({}; counts {})", info.name, info.experiments.front(), info.count_unit),
      "milarun run " + info.name + " --");
  s.meter.max_count = info.default_max_count;
  MeterOptions& m = s.meter;
  app->add_option("--max-count", m.max_count,
                  "stop after this many examples (" + info.count_unit + "; 0 = no limit, only with --until-stable)")
      ->capture_default_str();
  app->add_option("--min-duration", m.min_duration,
                  "seconds of timed training to reach before stopping, even past --max-count (0 = none)")
      ->capture_default_str();
  app->add_option("--sample-duration", m.sample_duration, "seconds per rate slice")->capture_default_str();
  app->add_flag("--until-stable", m.until_stable,
                "also stop once the rate is steady over the summary window (docs/statistics.md)");
  app->add_flag(
      "--stop-at-count", [&m](std::int64_t) { m.window_rule = false; },
      "stop at --max-count as the original, even while the summary window still holds warm-up (default: go on "
      "until it holds only steady slices, the window rule)");
  app->add_option("--max-extension", m.max_extension, "the window rule's limit: timed seconds past --max-count at most")
      ->capture_default_str();
  // The original's init_torch arguments, accepted by every workload.
  TorchArgs& t = s.torch;
  app->add_flag("--cuda", t.cuda, "train on the GPU (default: when one is visible)");
  app->add_flag("--no-cuda", t.no_cuda, "train on the CPU");
  app->add_option("--seed", t.seed, "random seed")->capture_default_str();
  app->add_option("--workers", t.workers, "torch's intra-op threads (not given: 1) and the workload's loader workers");
  workload.add_options(*app);
  // Ranges every workload shares, checked here once for all of them.
  static const CLI::Validator positive(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (end == value.c_str() || *end != '\0') return "";  // not a number: the conversion says so
        return v > 0 ? "" : "must be a positive number, got " + value;
      },
      "> 0");
  for (const char* flag : {"--batch-size"})
    if (CLI::Option* o = app->get_option_no_throw(flag)) o->check(positive);
  return app;
}

namespace {

// "" or why an integer word cannot be read exactly: CLI11 saturates a
// 64-bit integer past its range instead of refusing it.
std::string integer_overflow(const std::vector<std::string>& args) {
  static const std::regex integer("^[-+]?[0-9]+$");
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = i > 0 ? args[i - 1] : "", word = args[i];
    if (auto eq = word.find('='); word.rfind("--", 0) == 0 && eq != std::string::npos)
      flag = word.substr(0, eq), word = word.substr(eq + 1);
    if (!std::regex_match(word, integer)) continue;
    errno = 0;
    (void)std::strtoll(word.c_str(), nullptr, 10);
    if (errno == ERANGE)
      return fmt::format("{}: {} is out of range (integers are 64-bit: at most 9223372036854775807)", flag, word);
  }
  return "";
}

// "" or the one problem with `args` (number words normalised). Throws
// CLI::CallForHelp for --help.
std::string run_args_problem(CLI::App& app, const RunSettings& s, const std::vector<std::string>& args) {
  std::vector<std::string> words;
  for (const auto& a : args) words.push_back(normalize_number_word(a));
  if (std::string why = integer_overflow(words); !why.empty()) return why;
  std::vector<std::string> rev(words.rbegin(), words.rend());
  try {
    app.parse(rev);  // CLI11 consumes a reversed vector
  } catch (const CLI::CallForHelp&) {
    throw;
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  const MeterOptions& m = s.meter;
  if (!(m.sample_duration > 0) || !std::isfinite(m.sample_duration))  // also refuses nan and inf
    return fmt::format("--sample-duration must be a positive number of seconds, got {}", m.sample_duration);
  if (m.max_count < 0) return fmt::format("--max-count must be >= 0, got {}", m.max_count);
  if (m.max_count == 0 && !m.until_stable)
    return "--max-count 0 means no limit, which only ends with --until-stable; give a count or add --until-stable";
  if (!(m.min_duration >= 0) || !std::isfinite(m.min_duration))
    return fmt::format("--min-duration must be a number of seconds >= 0, got {}", m.min_duration);
  if (!(m.max_extension >= 0) || !std::isfinite(m.max_extension))
    return fmt::format("--max-extension must be a number of seconds >= 0, got {}", m.max_extension);
  if (s.torch.workers < 0) return fmt::format("--workers must be >= 0, got {}", s.torch.workers);
  if (s.torch.cuda && s.torch.no_cuda) return "--cuda and --no-cuda together: give one";
  return "";
}

}  // namespace

int parse_run_args(CLI::App& app, const WorkloadInfo& info, const RunSettings& s, const std::vector<std::string>& args,
                   std::ostream& out, std::ostream& err) {
  std::string why;
  try {
    why = run_args_problem(app, s, args);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  }
  if (why.empty()) return -1;
  err << fmt::format("milarun run {}: {} — `milarun run {} -- --help` lists its arguments\n", info.name,
                     terminal_safe(why), info.name);
  return 2;
}

std::string check_run_arguments(const std::string& experiment, const std::vector<std::string>& args,
                                const std::string& dataroot) {
  const WorkloadInfo* info = find_workload(experiment);
  if (!info) return fmt::format("unknown experiment '{}' (`milarun list` shows the workloads)", experiment);
  auto workload = info->make();
  RunSettings settings;
  auto app = configure_run_app(*info, *workload, settings);
  try {
    if (std::string why = run_args_problem(*app, settings, args); !why.empty()) return why;
  } catch (const CLI::CallForHelp&) {
    return "--help: asks for the help text instead of running; remove it";
  }
  const CLI::Option* o = app->get_option_no_throw("--dataset");
  if (!o || dataroot.empty()) return "";
  const std::string name = o->count() ? o->as<std::string>() : o->get_default_str();
  const DatasetInfo* d = find_dataset(name);
  if (!d) return fmt::format("--dataset {}: not a dataset of this build (`milarun list` shows them)", name);
  if (!d->present(dataroot))
    return fmt::format("--dataset {}: dataset {} is missing under {}; make it: {}", name, d->name, dataroot,
                       dataset_command(d->name, dataroot));
  return "";
}

}  // namespace milabench
