// milarun: the command line. Flag tables only; the work is in src/.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>

#include "cli/cgroups_cmd.hpp"
#include "cli/dataset_cmd.hpp"
#include "cli/run_cmd.hpp"
#include "data/dataset.hpp"
#include "report/report.hpp"
#include "suite/jobs.hpp"
#include "workloads/workload.hpp"

using namespace milabench;

static std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "milarun";
}

static std::string env_or(const char* key, const std::string& fallback) {
  const char* v = std::getenv(key);
  return v && *v ? v : fallback;
}

static int rerun(const std::string& file, const std::string& out, const std::vector<std::string>& overrides) {
  std::ifstream in(file);
  nlohmann::json r;
  try {
    if (!in) throw std::runtime_error("cannot open");
    r = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << fmt::format("milarun rerun: {}: not a readable result file ({})\n", file, e.what());
    return 2;
  }
  RunOptions o;
  o.experiment = r.value("experiment", r.value("workload", std::string()));
  o.dataroot = r.value("dataroot", std::string());
  o.out = out;
  o.experiment_name = r.value("name", std::string());
  if (r.contains("job_id") && r["job_id"].is_string()) o.job_id = r["job_id"];
  if (r.contains("arguments")) o.args = r["arguments"].get<std::vector<std::string>>();
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
  if (r.contains("environ"))
    for (auto& [k, v] : r["environ"].items()) {
      std::cerr << fmt::format("  env {}={}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
      if (v.is_string()) setenv(k.c_str(), v.get<std::string>().c_str(), 1);
    }
  o.call = {self_exe(), "rerun", file};
  return run_experiment(o);
}

int main(int argc, char** argv) {
  // Everything after the first "--" belongs to the workload, untouched by CLI11.
  std::vector<std::string> own, rest;
  bool split = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!split && a == "--") {
      split = true;
      continue;
    }
    (split ? rest : own).push_back(a);
  }
  std::vector<std::string> call(argv, argv + argc);

  CLI::App app("milarun: training benchmarks (milabench in C++)", "milarun");
  app.require_subcommand(1);

  auto* run = app.add_subcommand("run", "run one experiment in this process");
  RunOptions ro;
  run->add_option("experiment", ro.experiment, "workload name or milarun.models.x:main")->required();
  run->add_option("-d,--dataroot", ro.dataroot, "dataset root (default $MILARUN_DATAROOT)");
  run->add_option("-o,--out", ro.out, "result FILE.json or DIR (default: JSON on stdout)");
  run->add_option("--experiment-name", ro.experiment_name, "name recorded in the result");
  run->add_option("--job-id", ro.job_id, "job id recorded in the result");
  run->add_option("--extra", ro.extra_json, "JSON merged into the result");

  auto* jb = app.add_subcommand("jobs", "run every test of a profile on every device, in parallel copies");
  JobsOptions jo;
  jb->add_option("profile", jo.profile, "profile JSON, e.g. profiles/standard.json")->required();
  jb->add_option("-d,--dataroot", jo.dataroot, "dataset root (default $MILARUN_DATAROOT)");
  jb->add_option("-o,--out", jo.outdir,
                 "results folder (default: $MILARUN_OUTROOT/results-DATE; without either, JSON on stdout)");
  jb->add_option("--repeat", jo.repeat, "run the whole profile this many times")->capture_default_str();
  jb->add_option("--name", jo.names, "only these tests (names in the profile)");
  jb->add_flag("--no-cgexec", jo.no_cgexec, "do not put runs into cgroups");
  jb->add_option("--devices", jo.devices,
                 "number of devices (default: GPUs found, else 1); without GPUs, splits the CPUs into N partitions");
  jb->add_option("--launcher", jo.launcher, "local, or slurm: each wave as an srun step in this allocation (devices per node)")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str();

  auto* ds = app.add_subcommand("dataset", "make datasets under a data root (synthetic, in the real layout)");
  DatasetCommand dc;
  ds->add_option("names", dc.names, "dataset names, e.g. mnist or milarun.datasets:mnist");
  ds->add_option("-d,--dataroot", dc.dataroot, "dataset root (default $MILARUN_DATAROOT)");
  ds->add_option("--profile", dc.profile, "also every dataset the tests of this profile use");
  ds->add_option("--scale", dc.options.scale, "fraction of the real size, in (0, 1]")->capture_default_str();
  ds->add_option("--threads", dc.options.threads, "generator threads (0 = all CPUs)")->capture_default_str();
  ds->add_flag("--force", dc.options.force, "regenerate even when present");
  ds->add_flag("--download", dc.download, "download the original data (needs network) instead of generating it");

  auto* rr = app.add_subcommand("rerun", "re-run the test that produced a result file");
  std::string rerun_file, rerun_out;
  rr->add_option("result", rerun_file, "result JSON")->required()->check(CLI::ExistingFile);
  rr->add_option("-o,--out", rerun_out, "result FILE.json or DIR (default: stdout)");

  auto* sum = app.add_subcommand("summary", "summarise a results folder (baseline JSON)");
  std::string sum_dir, sum_out;
  sum->add_option("outdir", sum_dir, "results folder")->required();
  sum->add_option("-o,--out", sum_out, "summary file (default: stdout)");

  auto* rep = app.add_subcommand("report", "table, score, comparisons, HTML");
  ReportOptions rp;
  rep->add_option("input", rp.input, "results folder or summary JSON")->required();
  rep->add_option("--weights", rp.weights, "weights JSON (e.g. weights/standard.json)");
  rep->add_option("--compare", rp.compare, "baseline summary JSON");
  rep->add_option("--html", rp.html, "write an HTML report here");
  rep->add_option("--price", rp.price, "machine price in dollars")->check(CLI::PositiveNumber);
  rep->add_flag("--compare-gpus", rp.compare_gpus, "per-device comparison matrices");
  rep->add_option("--title", rp.title, "report title");
  rep->add_option("--csv", rp.csv, "write the main table as CSV here");
  rep->add_option("--markdown", rp.markdown, "write the main table as Markdown here");

  app.add_subcommand("list", "list the workloads and datasets of this build");
  CgroupsCmdOptions cg;
  auto* cgroups = add_cgroups_command(app, cg);

  std::vector<std::string> rev(own.rbegin(), own.rend());
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (*run) {
      ro.args = rest;
      ro.call = call;
      return run_experiment(ro);
    }
    if (*jb) {
      jo.extra_args = rest;
      if (jo.dataroot.empty()) jo.dataroot = env_or("MILARUN_DATAROOT", "");
      if (jo.outdir.empty() && std::getenv("MILARUN_OUTROOT")) {
        char stamp[64];
        std::time_t t = std::time(nullptr);
        std::strftime(stamp, sizeof stamp, "results-%Y-%m-%d.%H:%M:%S", std::localtime(&t));
        jo.outdir = env_or("MILARUN_OUTROOT", ".") + "/" + stamp;
      }
      if (jo.outdir.empty()) jo.json_to_stdout = true;
      jo.check_dataset = [](const std::string& name, const std::string& root) -> std::string {
        const DatasetInfo* d = find_dataset(name);
        if (!d || d->present(root)) return "";
        return fmt::format("dataset {} is missing under {}; it will fail: run {}", d->name, root,
                           dataset_command(d->name, root));
      };
      return run_jobs(jo, std::cout, std::cerr);
    }
    if (*ds) return run_dataset_command(dc, std::cout, std::cerr);
    if (*rr) return rerun(rerun_file, rerun_out, rest);
    if (*sum) return run_summary(sum_dir, sum_out, std::cout, std::cerr);
    if (*rep) return run_report(rp, std::cout, std::cerr);
    if (*cgroups) return run_cgroups_command(cg, std::cout, std::cerr);
    std::cout << "workloads (name, experiments, count unit, default --max-count):\n";
    for (const auto& w : workload_registry()) {
      std::string ex;
      for (const auto& e : w.experiments) ex += (ex.empty() ? "" : ", ") + e;
      std::cout << fmt::format("  {:<12} {:<45} {:<10} {}\n", w.name, ex, w.count_unit, w.default_max_count);
    }
    std::cout << "datasets (name, aliases, layout under DATAROOT; make with `milarun dataset NAME -d DATAROOT`):\n";
    for (const auto& d : dataset_registry()) {
      std::string al;
      for (const auto& a : d.aliases) al += (al.empty() ? "" : ", ") + a;
      std::cout << fmt::format("  {:<14} {:<32} {}\n", d.name, al, d.layout);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "milarun: " << e.what() << "\n";
    return 2;
  }
}
