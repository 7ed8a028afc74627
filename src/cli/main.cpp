// milarun: the front of the command line, without torch. It runs the suite
// (jobs), summaries, reports and cgroups itself, and execs milarun-torch
// (worker_main.cpp, next to this binary) for run, rerun, dataset and list, so
// the orchestrator that stays resident for the whole suite never maps
// libtorch. Flag tables only; the work is in src/.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cgroups_cmd.hpp"
#include "cli/cli_args.hpp"
#include "cli/store_cmd.hpp"
#include "devices/gpu_ids.hpp"
#include "launch/capture_output.hpp"
#include "launch/openmp_wait.hpp"
#include "launch/self_exe.hpp"
#include "report/report.hpp"
#include "results/args_check.hpp"
#include "results/input_checks.hpp"
#include "results/version.hpp"
#include "store/compare_ref.hpp"
#include "store/history.hpp"
#include "store/store_spec.hpp"
#include "suite/jobs.hpp"

using namespace milabench;

namespace {

const std::set<std::string> kWorkerCommands = {"run", "rerun", "dataset", "list"};

std::string env_or(const char* key, const std::string& fallback) {
  const char* v = std::getenv(key);
  return v && *v ? v : fallback;
}

// $MILARUN_WORKER, else milarun-torch in this binary's folder.
std::string worker_path() {
  if (const char* w = std::getenv("MILARUN_WORKER"); w && *w) return w;
  return sibling_exe_path("milarun-torch");
}

bool worker_usable(const std::string& path, std::ostream& err) {
  if (::access(path.c_str(), X_OK) == 0) return true;
  err << fmt::format("milarun: {} is missing or not executable; build it (cmake --build build) or set MILARUN_WORKER\n",
                     path);
  return false;
}

// `report --compare @...`: the baseline from the results store (the
// summary of that suite run), one line on err when it cannot be had.
bool compare_from_store(ReportOptions& rp, const std::string& db, std::ostream& err) {
  const std::string spec = store::resolve_store_spec(db, store::parent_dir(rp.input));
  try {
    if (spec.empty()) throw std::invalid_argument("--compare " + rp.compare + " needs a results store; pass --db PATH");
    auto s = store::open_store(spec, /*must_exist=*/true);
    rp.compare_summary = store::summary_for_ref(*s, rp.compare, rp.input, &rp.compare_label);
    rp.compare.clear();
    return true;
  } catch (const std::exception& e) {
    err << terminal_safe(std::string("error: ") + e.what()) << "\n";
    return false;
  }
}

// The HTML report's history charts: the trends of the store beside the
// results (when there is one; a store that cannot be read adds nothing).
std::vector<TestTrend> store_trends(const std::string& db, const std::string& input) {
  const std::string spec = store::resolve_store_spec(db, store::parent_dir(input));
  if (spec.empty()) return {};
  try {
    auto s = store::open_store(spec, /*must_exist=*/true);
    return store::test_trends(*s, {}, 5);
  } catch (const std::exception& e) {
    std::cerr << terminal_safe(std::string("note: no history charts: results store ") + e.what()) << "\n";
    return {};
  }
}

// `milarun jobs` and its flags, bound to `jo` and `db` (the --db text).
CLI::App* add_jobs_command(CLI::App& app, JobsOptions& jo, std::string& db) {
  auto* jb = app.add_subcommand("jobs", "run every test of a profile on every device, in parallel copies");
  jb->add_option("profile", jo.profile, "profile JSON, e.g. profiles/standard.json")->required();
  jb->add_option("-d,--dataroot", jo.dataroot, "dataset root (default $MILARUN_DATAROOT)");
  jb->add_option("-o,--out", jo.outdir,
                 "results folder (default: $MILARUN_OUTROOT/results-DATE; without either, JSON on stdout)");
  jb->add_option("--repeat", jo.repeat, "run the whole profile this many times")->capture_default_str();
  jb->add_option("--name", jo.names, "only these tests (names in the profile)");
  jb->add_flag("--no-cgexec", jo.no_cgexec, "do not put runs into cgroups");
  jb->add_option(
      "--devices", jo.devices,
      "number of devices (default: GPUs found; without GPUs, N CPU partitions by the rule in docs/isolation.md)");
  jb->add_flag("--resume", jo.resume,
               "skip runs that already have a result in -o; runs that failed for a reason you can fix "
               "(bad_input, interrupted, not_started) run again");
  jb->add_flag("--mixed-arguments", jo.mixed_arguments,
               "allow results of the same test run with other arguments in -o (refused by default)");
  jb->add_option("--max-duration", jo.max_duration_s,
                 "wall-clock limit per run in seconds, overriding the profile's \"timeout\" (default 3600)");
  jb->add_option("--min-duration", jo.min_duration_s,
                 "every run continues past --max-count until this many seconds were timed (fast machines)")
      ->check(CLI::NonNegativeNumber);
  jb->add_flag("--stop-at-count", jo.stop_at_count,
               "every run stops at --max-count as the original's, even while its summary window holds warm-up "
               "(default: runs go on until it holds only steady slices, the window rule)");
  jb->add_option("--min-free-mb", jo.min_free_mb, "stop before a test when -o has less free space (MiB)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  jb->add_option("--launcher", jo.launcher,
                 "local, or slurm: each wave as an srun step in this allocation (devices per node)")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str();
  jb->add_option("--db", db,
                 "record each run in this results store: a SQLite file or postgresql://...; none: off (default "
                 "$MILARUN_DB, else $MILARUN_OUTROOT/milarun.sqlite, else milarun.sqlite beside -o)");
  return jb;
}

// `milarun report` and its flags, bound to `rp` and `db` (the --db text).
CLI::App* add_report_command(CLI::App& app, ReportOptions& rp, std::string& db) {
  auto* rep = app.add_subcommand("report", "table, score, comparisons, HTML");
  rep->add_option("input", rp.input, "results folder or summary JSON")->required();
  rep->add_option("--weights", rp.weights, "weights JSON (e.g. weights/standard.json)");
  rep->add_option("--compare", rp.compare,
                  "baseline: a summary JSON, or a suite run of the results store (@last, @ID: see milarun history)");
  rep->add_option("--db", db, "results store of --compare @... (default as milarun history's)");
  rep->add_option("--margin", rp.margin_pct,
                  "with --compare: differences up to this many % do not matter (default: learned from the runs' "
                  "run-to-run noise)");  // run_report checks the range
  rep->add_option("--html", rp.html, "write an HTML report here");
  rep->add_option("--price", rp.price, "machine price in dollars (> 0)");  // run_report checks the range
  rep->add_flag("--compare-gpus", rp.compare_gpus, "per-device comparison matrices");
  rep->add_option("--title", rp.title, "report title");
  rep->add_option("--csv", rp.csv, "write the main table as CSV here");
  rep->add_option("--markdown", rp.markdown, "write the main table as Markdown here");
  return rep;
}

// `milarun jobs` after parsing: defaults from the environment, the results
// store, the torch half as pre-flight and worker; then run_jobs.
int run_jobs_command(JobsOptions& jo, const CLI::App& jb, const std::string& jobs_db,
                     const std::vector<std::string>& rest) {
  jo.extra_args = rest;
  jo.devices_given = jb.count("--devices") > 0;
  jo.max_duration_given = jb.count("--max-duration") > 0;
  jo.self_exe = worker_path();
  if (!worker_usable(jo.self_exe, std::cerr)) return 2;
  if (jo.dataroot.empty()) jo.dataroot = env_or("MILARUN_DATAROOT", "");
  if (jo.outdir.empty() && std::getenv("MILARUN_OUTROOT")) {
    char stamp[64];
    std::time_t t = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "results-%Y-%m-%d.%H:%M:%S", std::localtime(&t));
    jo.outdir = env_or("MILARUN_OUTROOT", ".") + "/" + stamp;
  }
  if (jo.outdir.empty()) jo.json_to_stdout = true;
  jo.db = store::resolve_store_spec(jobs_db, jo.json_to_stdout ? "" : store::parent_dir(jo.outdir));
  // The workloads' flag tables and the dataset registry live in the
  // torch half: one dry run of every test there.
  jo.preflight = [&](const std::vector<TestArguments>& tests, const std::string& root) {
    // On stdin: one argv word is capped at 128 KiB, a profile of 1000 tests is not.
    return capture_output({jo.self_exe, "check-args", "-d", root, "--batch", "-"}, encode_args_check_requests(tests));
  };
  return run_jobs(jo, std::cout, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "-V")) {
    std::cout << version_line() << "\n";
    return 0;
  }
  const std::string order_warning = pin_cuda_device_order();  // before any CUDA, inherited by every run
  if (argc > 1 && kWorkerCommands.count(argv[1])) {
    std::string worker = worker_path();
    if (!worker_usable(worker, std::cerr)) return 2;
    set_default_openmp_spin();
    ::execv(worker.c_str(), argv);
    std::cerr << fmt::format("milarun: cannot run {}: {}\n", worker, std::strerror(errno));
    return 2;
  }
  auto [own, rest] = split_at_double_dash(argc, argv);

  CLI::App app("milarun: training benchmarks (milabench in C++); `milarun --version` prints the version", "milarun");
  app.require_subcommand(1);
  // Listed for --help; handled by milarun-torch (see kWorkerCommands).
  app.add_subcommand("run", "run one experiment in this process (`milarun run NAME -- --help`)");
  app.add_subcommand("rerun", "re-run the test that produced a result file");
  app.add_subcommand("dataset", "make datasets under a data root (synthetic, in the real layout)");
  app.add_subcommand("list", "list the workloads and datasets of this build");

  JobsOptions jo;
  std::string jobs_db;
  auto* jb = add_jobs_command(app, jo, jobs_db);

  auto* sum = app.add_subcommand("summary", "summarise a results folder (baseline JSON)");
  std::string sum_dir, sum_out;
  sum->add_option("outdir", sum_dir, "results folder")->required();
  sum->add_option("-o,--out", sum_out, "summary file (default: stdout)");

  ReportOptions rp;
  std::string report_db;
  auto* rep = add_report_command(app, rp, report_db);

  CgroupsCmdOptions cg;
  auto* cgroups = add_cgroups_command(app, cg);
  StoreCmdOptions so;
  const StoreCommands store_cmds = add_store_commands(app, so);

  if (int rc = parse_own(app, own); rc >= 0) return rc;

  try {
    if (*jb) {
      if (!order_warning.empty()) std::cerr << order_warning << "\n";
      return run_jobs_command(jo, *jb, jobs_db, rest);
    }
    if (*sum) return run_summary(sum_dir, sum_out, std::cout, std::cerr);
    if (*rep) {
      rp.price_given = rep->count("--price") > 0;
      if (store::is_store_ref(rp.compare) && !compare_from_store(rp, report_db, std::cerr)) return 2;
      if (!rp.html.empty()) rp.trends = store_trends(report_db, rp.input);
      rp.margin_given = rep->count("--margin") > 0;
      return run_report(rp, std::cout, std::cerr);
    }
    if (*store_cmds.db || *store_cmds.history) return run_store_command(store_cmds, so, std::cout, std::cerr);
    if (*cgroups) return run_cgroups_command(cg, std::cout, std::cerr);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "milarun: " << e.what() << "\n";
    return 2;
  }
}
