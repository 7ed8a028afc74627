// milarun-torch: the torch half of the command line (run, rerun, dataset,
// list, check-args). The `milarun` front binary (main.cpp, no torch)
// execs this one for those subcommands, and `milarun jobs` launches it for
// every run, so the orchestrator never maps libtorch. Flag tables only.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/cli_args.hpp"
#include "cli/dataset_cmd.hpp"
#include "data/dataset.hpp"
#include "devices/gpu_ids.hpp"
#include "launch/lifeline.hpp"
#include "launch/self_exe.hpp"
#include "results/args_check.hpp"
#include "results/input_checks.hpp"
#include "results/result_record.hpp"
#include "results/run_exit.hpp"
#include "results/version.hpp"
#include "run/crash_report.hpp"
#include "run/run_app.hpp"
#include "run/run_harness.hpp"
#include "workloads/workload.hpp"

using namespace milabench;

static int rerun(const std::string& file, const std::string& out, const std::vector<std::string>& overrides) {
  std::ifstream in(file);
  std::string why = "cannot open";
  std::optional<ResultRecord> r;
  if (in) {
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    why = "not JSON";
    if (!doc.is_discarded()) r = parse_result_record(doc, &why);
    if (r && r->experiment.empty()) why = "no \"experiment\"", r.reset();
  }
  if (!r) {
    std::cerr << fmt::format("milarun rerun: {}: not a readable result file of milarun ({})\n", file, why);
    return kRunExitUsage;
  }
  RunOptions o;
  o.experiment = r->experiment;
  o.dataroot = r->dataroot;
  o.experiment_name = r->name;
  o.job_id = r->job_id;
  o.args = r->arguments;
  o.out = out;
  // An override replaces the flag and its value in the recorded arguments.
  for (size_t i = 0; i < overrides.size(); ++i) {
    const std::string& flag = overrides[i];
    if (flag.rfind("--", 0) != 0) continue;
    for (size_t j = 0; j < o.args.size(); ++j) {
      if (o.args[j] != flag) continue;
      bool has_value = j + 1 < o.args.size() && o.args[j + 1].rfind("--", 0) != 0;
      o.args.erase(o.args.begin() + static_cast<long>(j), o.args.begin() + static_cast<long>(j + (has_value ? 2 : 1)));
      break;
    }
  }
  o.args.insert(o.args.end(), overrides.begin(), overrides.end());
  std::string cmd = fmt::format("milarun run {} -d {} --experiment-name {} --job-id {}{} --", o.experiment, o.dataroot,
                                o.experiment_name, o.job_id, out.empty() ? "" : " -o " + out);
  for (const auto& a : o.args) cmd += " " + a;
  std::cerr << "rerun: " << cmd << "\n";
  for (auto& [k, v] : r->environ.items()) {
    std::cerr << fmt::format("  env {}={}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
    if (v.is_string()) setenv(k.c_str(), v.get<std::string>().c_str(), 1);
  }
  o.call = {self_exe_path(), "rerun", file};
  return run_experiment(o);
}

// `check-args`: 0 when valid (or, with --batch, after printing the problems),
// 2 with one line on stderr otherwise.
static int check_args(const std::string& experiment, const std::vector<std::string>& args, const std::string& batch,
                      const std::string& dataroot) {
  if (batch.empty()) {
    std::string why = check_run_arguments(experiment, args, dataroot);
    if (why.empty()) return 0;
    std::cerr << "milarun check-args " << terminal_safe(experiment) << ": " << terminal_safe(why) << "\n";
    return 2;
  }
  std::string text = batch;
  if (batch == "-") text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  std::vector<ArgsCheckRequest> tests;
  try {
    tests = decode_args_check_requests(text);
  } catch (const std::invalid_argument& e) {
    std::cerr << "milarun check-args: " << e.what() << "\n";
    return 2;
  }
  for (const auto& t : tests) {
    std::string why = check_run_arguments(t.experiment, t.arguments, dataroot);
    if (!why.empty()) std::cout << encode_args_check_problem({t.test, why});
  }
  return 0;
}

int main(int argc, char** argv) {
  install_crash_report("milarun-torch");
  watch_suite_lifeline();  // under milarun jobs: dies with the suite whatever the exec_prefix
  if (const std::string w = pin_cuda_device_order(); !w.empty()) std::cerr << w << "\n";  // before any CUDA
  if (argc == 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "-V")) {
    std::cout << version_line() << "\n";
    return 0;
  }
  auto [own, rest] = split_at_double_dash(argc, argv);
  std::vector<std::string> call(argv, argv + argc);

  CLI::App app("milarun-torch: the torch half of milarun (run it through `milarun`)", "milarun");
  app.require_subcommand(1);

  auto* run = app.add_subcommand("run", "run one experiment in this process");
  RunOptions ro;
  run->add_option("experiment", ro.experiment, "workload name or milarun.models.x:main")->required();
  run->add_option("-d,--dataroot", ro.dataroot, "dataset root (default $MILARUN_DATAROOT)");
  run->add_option("-o,--out", ro.out, "result FILE.json or DIR (default: JSON on stdout)");
  run->add_option("--experiment-name", ro.experiment_name, "name recorded in the result");
  run->add_option("--job-id", ro.job_id, "job id recorded in the result");
  run->add_option("--extra", ro.extra_json, "JSON merged into the result");

  auto* ds = app.add_subcommand("dataset", "make datasets under a data root (synthetic, in the real layout)");
  DatasetCommand dc;
  ds->add_option("names", dc.names, "dataset names, e.g. mnist or milarun.datasets:mnist");
  ds->add_option("-d,--dataroot", dc.dataroot, "dataset root (default $MILARUN_DATAROOT)");
  ds->add_option("--profile", dc.profile, "also every dataset the tests of this profile use");
  ds->add_option("--scale", dc.options.scale, "fraction of the real size, in (0, 1]")->capture_default_str();
  ds->add_option("--threads", dc.options.threads, "generator threads (0 = all CPUs)")->capture_default_str();
  ds->add_flag("--force", dc.options.force, "regenerate even when present");
  ds->add_flag("--download", dc.download,
               "download the original data where the dataset table has a source (needs network); others are generated");

  auto* rr = app.add_subcommand("rerun", "re-run the test that produced a result file");
  std::string rerun_file, rerun_out;
  rr->add_option("result", rerun_file, "result JSON")->required()->check(CLI::ExistingFile);
  rr->add_option("-o,--out", rerun_out, "result FILE.json or DIR (default: stdout)");

  app.add_subcommand("list", "list the workloads and datasets of this build");
  // For `milarun jobs`: a dry run of each test's `milarun run` (parse only).
  auto* ca = app.add_subcommand("check-args", "parse a run's arguments with its workload's flags; run nothing");
  std::string ca_experiment, ca_batch, ca_root;
  ca->add_option("experiment", ca_experiment, "workload name or milarun.models.x:main");
  ca->add_option("-d,--dataroot", ca_root, "also check the run's dataset under this root");
  ca->add_option("--batch", ca_batch,
                 "JSON [{\"test\", \"experiment\", \"arguments\": [...]}], or - to read it from stdin: one "
                 "\"TEST<tab>problem\" line each on stdout");
  ca->group("");  // internal: not listed in --help

  if (int rc = parse_own(app, own); rc >= 0) return rc;

  try {
    if (*run) {
      ro.args = rest;
      ro.call = call;
      return run_experiment(ro);
    }
    if (*ca) return check_args(ca_experiment, rest, ca_batch, ca_root);
    if (*ds) return run_dataset_command(dc, std::cout, std::cerr);
    if (*rr) return rerun(rerun_file, rerun_out, rest);
    std::cout << "workloads (name, experiments, count unit, default --max-count):\n";
    for (const auto& w : workload_registry()) {
      std::string ex;
      for (const auto& e : w.experiments) ex += (ex.empty() ? "" : ", ") + e;
      std::cout << fmt::format("  {:<12} {:<45} {:<10} {}\n", w.name, ex, w.count_unit, w.default_max_count);
    }
    std::cout << "datasets (name, aliases, download, layout under DATAROOT; make with `milarun dataset NAME -d "
                 "DATAROOT [--download]`):\n";
    for (const auto& d : dataset_registry()) {
      std::string al = "milarun.datasets:" + d.name;
      for (const auto& a : d.source->aliases) al += ", " + a;
      std::cout << fmt::format("  {:<14} {:<42} {:<9} {}\n", d.name, al,
                               d.source->files.empty() ? "generated" : "download", d.source->layout);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "milarun: " << e.what() << "\n";
    return 2;
  }
}
