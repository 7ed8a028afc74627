#include "run/run_harness.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "launch/malloc_policy.hpp"
#include "launch/process.hpp"
#include "measure/progress.hpp"
#include "measure/rate_meter.hpp"
#include "monitor/inventory.hpp"
#include "monitor/monitor.hpp"
#include "results/argument_words.hpp"
#include "results/atomic_write.hpp"
#include "results/input_checks.hpp"
#include "results/result_document.hpp"
#include "results/result_name.hpp"
#include "results/result_record.hpp"
#include "results/unsaved.hpp"
#include "results/version.hpp"
#include "results/workload_outputs.hpp"
#include "run/result_keys.hpp"
#include "run/run_app.hpp"
#include "run/run_errors.hpp"
#include "run/torch_init.hpp"
#include "sys/dirs.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {

namespace {

double mono_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double epoch_s() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// Seconds since this process started (/proc/self/stat starttime; includes
// loading libtorch). 0 when it cannot be read.
double process_age_s() {
  std::ifstream stat("/proc/self/stat"), up("/proc/uptime");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  double uptime = 0;
  if (!(up >> uptime)) return 0;
  auto close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string f;
  for (int i = 3; i <= 22 && fields >> f; ++i)
    if (i == 22) return std::max(0.0, uptime - std::stod(f) / static_cast<double>(::sysconf(_SC_CLK_TCK)));
  return 0;
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Writes the result where -o says; see RunExit for what happens otherwise.
int write_result(const std::string& out, const std::string& name, const std::string& job_id,
                 const nlohmann::json& result, bool ok, std::string& where) {
  if (out.empty()) {
    std::cout << result.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    where = "stdout";
    return ok ? kRunExitOk : kRunExitFailed;
  }
  std::string path = out;
  if (is_dir(path) || path.back() == '/') {
    ::mkdir(path.c_str(), 0755);
    path += (path.back() == '/' ? "" : "/") + result_file_name(name, job_id.empty() ? "0" : job_id, !ok);
  }
  try {
    write_json_atomic(path, result);
    where = path;
    return ok ? kRunExitOk : kRunExitFailed;
  } catch (const std::exception& e) {
    // Disk full, read-only or no such place: park it where `milarun jobs --resume` finds it.
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    std::string parked = unsaved_dir(dir) + "/" + path.substr(slash == std::string::npos ? 0 : slash + 1);
    try {
      if (!make_dirs(unsaved_dir(dir))) throw std::runtime_error("cannot create " + unsaved_dir(dir));
      write_json_atomic(parked, result);
      std::cerr << fmt::format("milarun run: {}; the result is kept in {} (`milarun jobs --resume` moves it back)\n",
                               e.what(), parked);
    } catch (const std::exception& e2) {
      std::cerr << fmt::format("milarun run: {}; {}; the result follows on stdout — choose a writable -o\n", e.what(),
                               e2.what());
      std::cout << result.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    }
    return kRunExitResultParked;
  }
}

// The allocator policy of MILARUN_MALLOC / GLIBC_TUNABLES, applied; glibc's
// defaults (with a warning) when it cannot be applied. nullopt (and one
// line) when the variables are wrong.
std::optional<MallocPolicy> settle_malloc_policy() {
  std::string malloc_error;
  auto malloc_policy =
      choose_malloc_policy(std::getenv("MILARUN_MALLOC"), std::getenv("GLIBC_TUNABLES"), &malloc_error);
  if (!malloc_policy) {
    std::cerr << "milarun run: " << malloc_error << "\n";
    return std::nullopt;
  }
  if (!apply_malloc_policy(*malloc_policy, &malloc_error)) {
    std::cerr << "milarun run: warning: " << malloc_error << "; running with glibc's allocator defaults\n";
    malloc_policy = MallocPolicy{"system", "glibc defaults (" + malloc_error + ")"};
  }
  return malloc_policy;
}

// The run's own inputs that no workload flag checks: the name and job id
// (they become the result's file name) and --extra (parsed into `extra`,
// merged at the end). Returns "" or the one line to print (exit 2).
std::string run_inputs_problem(const RunOptions& opts, const std::string& name, nlohmann::json& extra) {
  if (std::string why = unsafe_name_reason(name); !why.empty())
    return fmt::format("milarun run: --experiment-name \"{}\" {}; use letters, digits, '_', '.', '+' or '-'",
                       terminal_safe(name), why);
  if (std::string why = unsafe_name_reason(opts.job_id); !opts.job_id.empty() && !why.empty())
    return fmt::format("milarun run: --job-id \"{}\" {}; use letters, digits, '_', '.', '+' or '-'",
                       terminal_safe(opts.job_id), why);
  if (opts.extra_json.empty()) return "";
  extra = nlohmann::json::parse(opts.extra_json, nullptr, false);
  if (!extra.is_object()) return "milarun run: --extra must be a JSON object, e.g. --extra '{\"key\": 1}'";
  // The keys that name, version and judge the result stay milarun's (a name
  // from --extra would bypass the file-name checks above).
  for (const char* key : {"name", "job_id", "schema_version", "success", "failure_kind"})
    if (extra.contains(key))
      return fmt::format(
          "milarun run: --extra may not set \"{}\": the result's own key (use --experiment-name / --job-id)", key);
  return "";
}

// The result's "timings": the meter's "train" entry (or the ranks' own
// entries), "setup" (program start to the first timed block) and "program",
// in seconds.
nlohmann::json run_timings(const std::optional<RateMeter>& meter, const std::optional<Session>& session,
                           double program_start) {
  const double wall_offset = epoch_s() - mono_s();  // monotonic -> wall clock, for the stamps
  nlohmann::json timings = nlohmann::json::object();
  if (meter) {
    const nlohmann::json metrics = session ? session->outputs().metrics : nlohmann::json::object();
    timings["train"] = train_timing(*meter, metrics, wall_offset);
    if (meter->started()) timings["setup"] = {{"time", meter->first_start() - program_start}};
  }
  timings["program"] = {{"time", mono_s() - program_start}};
  if (session && session->outputs().rank_timings) {  // per-rank entries (Session::set_timings)
    timings.erase("train");
    timings.update(*session->outputs().rank_timings);
  }
  return timings;
}

// The run's last line on stderr: ok/FAILED with its count and last rate, or
// why the summary will not count it (fewer than 3 rate slices).
void print_run_end(const WorkloadInfo& info, const RunSettings& settings, const std::optional<RateMeter>& meter,
                   bool ok, const std::string& where, const nlohmann::json& result) {
  if (auto r = parse_result_record(result); ok && r && r->contended())
    std::cerr << fmt::format(
        "milarun run {}: warning: {}; its rate may understate this machine (the summary and the report flag it)\n",
        info.name, contention_text(*r));
  const double wall = meter ? meter->wall_time() : 0.0;
  if (ok && meter && meter->rates().size() < 3) {  // summary: perf needs 3 slices; a 0.0/s "rate" would be invented
    std::cerr << fmt::format(
        "milarun run {}: too short to measure — {} {} in {:.1f} s, {} rate slice(s) of {:g} s; the summary needs 3 "
        "and counts this run as failed: raise --max-count -> {}\n",
        info.name, meter->count(), info.count_unit, wall, meter->rates().size(), settings.meter.sample_duration, where);
    return;
  }
  std::cerr << fmt::format("milarun run {}: {}{} — {} {} in {:.1f} s, last rate {:.1f}/s -> {}\n", info.name,
                           ok ? "ok" : "FAILED", meter && meter->stopped_stable() ? " (steady, --until-stable)" : "",
                           meter ? meter->count() : 0, info.count_unit, wall, meter ? meter->last_rate() : 0.0, where);
}

}  // namespace

int run_experiment(const RunOptions& opts) {
  const double program_start = mono_s() - process_age_s();
  const WorkloadInfo* info = find_workload(opts.experiment);
  if (!info) {
    std::cerr << fmt::format("milarun run: unknown experiment '{}' — `milarun list` shows the workloads\n",
                             terminal_safe(opts.experiment));
    return kRunExitUsage;
  }
  const std::string name = opts.experiment_name.empty() ? info->name : opts.experiment_name;
  auto workload = info->make();
  RunSettings settings;
  auto app = configure_run_app(*info, *workload, settings);
  if (int rc = parse_run_args(*app, *info, settings, opts.args, std::cout, std::cerr); rc >= 0) return rc;
  nlohmann::json extra;  // --extra, merged into the result at the end
  if (std::string why = run_inputs_problem(opts, name, extra); !why.empty()) {
    std::cerr << why << "\n";
    return kRunExitUsage;
  }
  // Before the workload allocates anything large (launch/malloc_policy.hpp).
  const auto malloc_policy = settle_malloc_policy();
  if (!malloc_policy) return kRunExitUsage;

  RunIdentity id;
  id.name = name;
  id.job_id = opts.job_id;
  id.dataroot = opts.dataroot;
  if (id.dataroot.empty())
    if (const char* d = std::getenv("MILARUN_DATAROOT")) id.dataroot = d;
  id.outdir = opts.out;
  id.call = opts.call;
  id.arguments.clear();
  for (const auto& a : opts.args) id.arguments.push_back(normalize_number_word(a));
  ResultDocument doc = harness_document(id, *info);
  doc.description->inventory["malloc"] = malloc_record(*malloc_policy);

  Monitor monitor;  // telemetry thread: fills "gpu_monitor" and "monitor" (docs/result-format.md)
  monitor.start();
  std::optional<RateMeter> meter;
  std::optional<Session> session;
  std::optional<RunFailure> failure;
  TorchSettings torch_settings;
  Progress progress(std::cerr, id.name, info->count_unit, settings.meter.max_count, ::isatty(STDERR_FILENO) == 1);
  // The run boundary: device set-up, the workload and the meter's last sync.
  try {
    install_typed_cpu_oom();
    torch_settings = init_torch(settings.torch);
    if (!torch_settings.warning.empty()) std::cerr << "milarun run: warning: " << torch_settings.warning << "\n";
    meter.emplace(settings.meter, mono_s, torch_settings.sync);
    meter->set_stopped_probe([&monitor](double t0, double t1) { return monitor.stopped_between(t0, t1); });
    session.emplace(*meter, torch_settings.device, id.dataroot, settings.torch.workers, settings.torch.seed);
    session->on_slice([&](int64_t count, double rate, std::optional<double> loss) {
      progress.update(mono_s() - meter->first_start(), count, rate, loss);
    });
    meter->arm();  // a workload that never calls begin() is timed from here
    workload->run(*session);
    meter->finish();
    progress.finish(meter->wall_time(), meter->count());
  } catch (...) {
    failure = classify_current_exception();
    if (failure->detail.find('\n') != std::string::npos)  // a backtrace: for the log only
      std::cerr << fmt::format("milarun run {}: {}\n", info->name, failure->detail);
    std::cerr << fmt::format("milarun run {}: failed ({}): {}\n", info->name, failure_kind_name(failure->kind),
                             failure->message);
  }
  const bool ok = !failure;
  nlohmann::json telemetry = monitor.stop(meter ? meter->window_span() : std::nullopt);
  doc.gpu_monitor = telemetry.value("gpu_monitor", nlohmann::json::object());
  doc.monitor = telemetry.value("monitor", nlohmann::json::object());
  doc.device = device_keys(torch_settings, doc.description->inventory.value("cpu_model", std::string("cpu")));
  doc.description->inventory["torch_threads"] = torch::get_num_threads();
  if (session) doc.outputs = session->outputs();
  doc.timings = run_timings(meter, session, program_start);
  doc.rss_peak_mb = peak_rss_mb();
  if (extra.is_object()) doc.extra = extra;
  if (failure) {
    doc.failure = failure->kind;
    doc.error = failure->message;
  }
  const nlohmann::json result = result_json(doc);

  std::string where;
  const int rc = write_result(opts.out, id.name, opts.job_id, result, ok, where);
  if (rc == kRunExitResultParked) return rc;
  print_run_end(*info, settings, meter, ok, where, result);
  return rc;
}

}  // namespace milabench
