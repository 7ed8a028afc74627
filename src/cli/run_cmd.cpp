#include "cli/run_cmd.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <regex>

#include "data/data_error.hpp"
#include "data/dataset.hpp"
#include "launch/malloc_policy.hpp"
#include "launch/process.hpp"
#include "measure/progress.hpp"
#include "measure/rate_meter.hpp"
#include "monitor/monitor.hpp"
#include "results/input_checks.hpp"
#include "results/result_file.hpp"
#include "suite/profile.hpp"
#include "suite/run_outcome.hpp"
#include "workloads/nonfinite_loss.hpp"
#include "workloads/session.hpp"
#include "workloads/workload.hpp"

extern char** environ;

namespace milabench {

static double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

static nlohmann::json recorded_environ() {
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    std::string k = kv.substr(0, eq);
    if (k == "MILARUN_ISOLATION") continue;  // recorded, checked, under "isolation"
    if (k.rfind("MILARUN", 0) == 0 || k.rfind("CUDA", 0) == 0 || k.find("NUM_THREADS") != std::string::npos ||
        k.rfind("SLURM", 0) == 0 || k == "OPENBLAS_CORETYPE")
      env[k] = kv.substr(eq + 1);
  }
  return env;
}

static bool is_dir(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string configure_run_app(CLI::App& app, const WorkloadInfo& info, Workload& workload, RunFlags& flags) {
  flags.meter.max_count = info.default_max_count;
  app.add_option("--max-count", flags.meter.max_count,
                 "stop after this many examples (" + info.count_unit + "; 0 = no limit, only with --until-stable)")
      ->capture_default_str();
  app.add_option("--sample-duration", flags.meter.sample_duration, "seconds per rate slice")->capture_default_str();
  app.add_flag("--until-stable", flags.meter.until_stable,
               "also stop once the rate is steady over the summary window (docs/statistics.md)");
  // The original's init_torch arguments, accepted by every workload.
  app.add_flag("--cuda", flags.cuda, "train on the GPU (default: when one is visible)");
  app.add_flag("--no-cuda", flags.no_cuda, "train on the CPU");
  app.add_option("--seed", flags.seed, "random seed")->capture_default_str();
  app.add_option("--workers", flags.workers, "torch's intra-op threads (default 1) and the workload's loader workers")
      ->check(CLI::NonNegativeNumber);
  workload.add_options(app);
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
    if (CLI::Option* o = app.get_option_no_throw(flag)) o->check(positive);
  const CLI::Option* dataset = app.get_option_no_throw("--dataset");
  return dataset ? "--dataset" : "";
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

}  // namespace

std::string parse_run_arguments(CLI::App& app, const std::vector<std::string>& args, const RunFlags& flags) {
  if (std::string why = integer_overflow(args); !why.empty()) return why;
  std::vector<std::string> rev(args.rbegin(), args.rend());
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp&) {
    throw;
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  const MeterOptions& mo = flags.meter;
  if (!(mo.sample_duration > 0) || !std::isfinite(mo.sample_duration))  // also refuses nan and inf
    return fmt::format("--sample-duration must be a positive number of seconds, got {}", mo.sample_duration);
  if (mo.max_count < 0) return fmt::format("--max-count must be >= 0, got {}", mo.max_count);
  if (mo.max_count == 0 && !mo.until_stable)
    return "--max-count 0 means no limit, which only ends with --until-stable; give a count or add --until-stable";
  return "";
}

std::string check_run_arguments(const std::string& experiment, const std::vector<std::string>& args,
                                const std::string& dataroot) {
  const WorkloadInfo* info = find_workload(experiment);
  if (!info) return fmt::format("unknown experiment '{}' (`milarun list` shows the workloads)", experiment);
  auto workload = info->make();
  CLI::App app(info->name, "milarun run " + info->name + " --");
  RunFlags flags;
  const std::string dataset_flag = configure_run_app(app, *info, *workload, flags);
  std::vector<std::string> words;
  for (const auto& a : args) words.push_back(normalize_number_word(a));
  try {
    if (std::string why = parse_run_arguments(app, words, flags); !why.empty()) return why;
  } catch (const CLI::CallForHelp&) {
    return "--help: asks for the help text instead of running; remove it";
  }
  if (dataset_flag.empty() || dataroot.empty()) return "";
  const CLI::Option* o = app.get_option(dataset_flag);
  const std::string name = o->count() ? o->as<std::string>() : o->get_default_str();
  const DatasetInfo* d = find_dataset(name);
  if (!d) return fmt::format("--dataset {}: not a dataset of this build (`milarun list` shows them)", name);
  if (!d->present(dataroot))
    return fmt::format("--dataset {}: dataset {} is missing under {}; make it: {}", name, d->name, dataroot,
                       dataset_command(d->name, dataroot));
  return "";
}

int run_experiment(const RunOptions& opts) {
  double program_start = now_s();
  const WorkloadInfo* info = find_workload(opts.experiment);
  if (!info) {
    std::cerr << fmt::format("milarun run: unknown experiment '{}' — `milarun list` shows the workloads\n",
                             terminal_safe(opts.experiment));
    return 2;
  }
  std::string name = opts.experiment_name.empty() ? info->name : opts.experiment_name;
  if (std::string why = unsafe_name_reason(name); !why.empty()) {  // it becomes the result's file name
    std::cerr << fmt::format("milarun run: --experiment-name \"{}\" {}; use letters, digits, '_', '.', '+' or '-'\n",
                             terminal_safe(name), why);
    return 2;
  }
  if (std::string why = unsafe_name_reason(opts.job_id); !opts.job_id.empty() && !why.empty()) {
    std::cerr << fmt::format("milarun run: --job-id \"{}\" {}; use letters, digits, '_', '.', '+' or '-'\n",
                             terminal_safe(opts.job_id), why);
    return 2;
  }
  auto workload = info->make();
  CLI::App app(fmt::format("{} ({}; counts {})", info->name, info->experiments.front(), info->count_unit),
               "milarun run " + info->name + " --");
  RunFlags flags;
  configure_run_app(app, *info, *workload, flags);
  MeterOptions& mo = flags.meter;

  std::vector<std::string> args;
  for (const auto& a : opts.args) args.push_back(normalize_number_word(a));
  try {
    if (std::string why = parse_run_arguments(app, args, flags); !why.empty()) {
      std::cerr << fmt::format("milarun run {}: {} — `milarun run {} -- --help` lists its arguments\n", info->name,
                               terminal_safe(why), info->name);
      return 2;
    }
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  }
  // --extra is merged into the result at the end: check it before the run.
  if (!opts.extra_json.empty() && !nlohmann::json::parse(opts.extra_json, nullptr, false).is_object()) {
    std::cerr << "milarun run: --extra must be a JSON object, e.g. --extra '{\"key\": 1}'\n";
    return 2;
  }

  // Before the workload allocates anything large (launch/malloc_policy.hpp).
  std::string malloc_error;
  auto malloc_policy =
      choose_malloc_policy(std::getenv("MILARUN_MALLOC"), std::getenv("GLIBC_TUNABLES"), &malloc_error);
  if (!malloc_policy) {
    std::cerr << "milarun run: " << malloc_error << "\n";
    return 2;
  }
  if (!apply_malloc_policy(*malloc_policy, &malloc_error)) {
    std::cerr << "milarun run: warning: " << malloc_error << "; running with glibc's allocator defaults\n";
    malloc_policy = MallocPolicy{"system", "glibc defaults (" + malloc_error + ")"};
  }

  std::string dataroot = opts.dataroot;
  if (dataroot.empty())
    if (const char* d = std::getenv("MILARUN_DATAROOT")) dataroot = d;

  // init_torch: --cuda/--no-cuda, else CUDA when available; threads = --workers or 1.
  bool use_cuda = !flags.no_cuda && torch::cuda::is_available();
  if (flags.cuda && !flags.no_cuda && !use_cuda)
    std::cerr << "milarun run: warning: --cuda given but no CUDA device is visible; training on the CPU\n";
  torch::Device device = use_cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  torch::manual_seed(flags.seed);
  if (use_cuda) torch::cuda::manual_seed_all(flags.seed);
  torch::set_num_threads(flags.workers > 0 ? flags.workers : 1);
  RateMeter::Sync sync;
  if (use_cuda) sync = [] { torch::cuda::synchronize(); };
  RateMeter meter(mo, now_s, sync);
  Session session(meter, device, dataroot, flags.workers, flags.seed);
  // Progress goes to stderr: a live line on a terminal, a line every 15 s in a log.
  Progress progress(std::cerr, name, info->count_unit, mo.max_count, ::isatty(STDERR_FILENO) == 1);
  const double run_start = now_s();
  session.on_slice([&](int64_t count, double rate, std::optional<double> loss) {
    progress.update(now_s() - run_start, count, rate, loss);
  });

  nlohmann::json result;
  result["schema_version"] = 1;
  result["name"] = name;
  result["job_id"] = opts.job_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(opts.job_id);
  result["call"] = opts.call;
  result["experiment"] = info->experiments.front();
  result["workload"] = info->name;
  result["count_unit"] = info->count_unit;
  result["dataroot"] = dataroot;
  result["outdir"] = opts.out;
  auto inv = machine_inventory();
  inv["libtorch_version"] = TORCH_VERSION;
  inv["torch_threads"] = torch::get_num_threads();
  inv["malloc"] = malloc_record(*malloc_policy);
  result["hostname"] = inv["hostname"];
  result["inventory"] = inv;
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  const char* part = std::getenv("MILARUN_CPU_PARTITION");
  result["device"] = cvd ? nlohmann::json(std::string(cvd)) : part ? nlohmann::json(std::string(part)) : nullptr;
  result["devices"] = cvd ? nlohmann::json(std::string(cvd)) : nullptr;
  result["gpu"] = use_cuda;
  result["device_count"] = use_cuda ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
  result["environ"] = recorded_environ();
  result["isolation"] = isolation_record();
  result["arguments"] = args;
  result["gpu_monitor"] = nlohmann::json::object();
  result["metrics"] = nlohmann::json::object();

  Monitor monitor;  // telemetry thread: fills "gpu_monitor" and "monitor" (docs/result-format.md)
  monitor.start();
  bool ok = true;
  std::string kind;
  try {
    workload->run(session);
    meter.finish();
    progress.finish(now_s() - run_start, meter.count());
    result["error"] = nullptr;
  } catch (const std::exception& e) {
    ok = false;
    result["error"] = e.what();
    std::string what = e.what();
    kind = "exception";
    if (what.find("out of memory") != std::string::npos || dynamic_cast<const std::bad_alloc*>(&e)) kind = "oom";
    if (dynamic_cast<const DataError*>(&e)) kind = "bad_input";
    if (dynamic_cast<const NonFiniteLoss*>(&e)) kind = "nonfinite_loss";
    std::cerr << fmt::format("milarun run {}: failed: {}\n", info->name, what);
  }
  result.update(monitor.stop(), true);
  result.update(session.extra(), true);
  if (session.extra().contains("metrics")) result["metrics"] = session.extra()["metrics"];
  result["success"] = ok;
  result["timings"] = {{"train", meter.to_json()}, {"program", {{"time", now_s() - program_start}}}};
  if (session.extra().contains("timings")) {  // per-rank entries (Session::set_timings) replace "train"
    result["timings"].erase("train");
    result["timings"].update(session.extra()["timings"]);
  }
  result["memory"] = {{"rss_peak_mb", peak_rss_mb()}};
  if (!opts.extra_json.empty()) {
    try {
      result.update(nlohmann::json::parse(opts.extra_json), true);
    } catch (const std::exception& e) {
      std::cerr << "milarun run: --extra is not valid JSON: " << e.what() << "\n";
    }
  }
  result.erase("failure_kind");
  if (!ok) result["failure_kind"] = kind;

  std::string path = opts.out;
  if (path.empty()) {
    std::cout << result.dump(2) << std::endl;
    return ok ? 0 : 1;
  }
  if (is_dir(path) || path.back() == '/') {
    ::mkdir(path.c_str(), 0755);
    path =
        path + (path.back() == '/' ? "" : "/") + result_file_name(name, opts.job_id.empty() ? "0" : opts.job_id, !ok);
  }
  try {
    write_json_atomic(path, result);
  } catch (const std::exception& e) {
    // Disk full or read-only: park the result where `milarun jobs --resume` finds it.
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    std::string parked = unsaved_dir(dir) + "/" + path.substr(slash == std::string::npos ? 0 : slash + 1);
    try {
      if (!make_dirs(unsaved_dir(dir))) throw std::runtime_error("cannot create " + unsaved_dir(dir));
      write_json_atomic(parked, result);
      std::cerr << fmt::format("milarun run: {}; the result is kept in {} (`milarun jobs --resume` moves it back)\n",
                               e.what(), parked);
      return ok ? 0 : 1;
    } catch (const std::exception& e2) {
      std::cerr << "milarun run: " << e.what() << "; " << e2.what() << " — choose a writable -o\n";
      std::cout << result.dump(2) << std::endl;  // nothing is lost
      return 2;
    }
  }
  const double wall = meter.to_json()["wall_time"].get<double>();
  if (ok && meter.rates().size() < 3) {  // summary.hpp: perf needs 3 slices; a 0.0/s "rate" would be invented
    std::cerr << fmt::format(
        "milarun run {}: too short to measure — {} {} in {:.1f} s, {} rate slice(s) of {:g} s; the summary needs 3 "
        "and counts this run as failed: raise --max-count -> {}\n",
        info->name, meter.count(), info->count_unit, wall, meter.rates().size(), mo.sample_duration, path);
    return 0;
  }
  std::cerr << fmt::format("milarun run {}: {}{} — {} {} in {:.1f} s, last rate {:.1f}/s -> {}\n", info->name,
                           ok ? "ok" : "FAILED", meter.stopped_stable() ? " (steady, --until-stable)" : "",
                           meter.count(), info->count_unit, wall, meter.last_rate(), path);
  return ok ? 0 : 1;
}

}  // namespace milabench
