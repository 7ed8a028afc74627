// One test's runs made on different machines or set-ups, averaged in one
// mean: folders of two nodes merged, a Slurm allocation over nodes of two
// GPU types, a --resume after a libtorch or driver upgrade, synthetic and
// real data. The summary keeps the mean (the original's rule) and flags it
// (docs/reliability.md).
#include <gtest/gtest.h>

#include <sstream>

#include "report/report.hpp"
#include "report/summary.hpp"
#include "report/summary_check.hpp"
#include "result_files.hpp"

using namespace milabench;
using namespace milabench::test;
using nlohmann::json;

namespace {

// A successful run of s.a on a machine with `gpu` and `libtorch`, reading `dataset` (synthetic or not).
json run_on(const std::string& job, const std::string& gpu, const std::string& libtorch, bool synthetic = true) {
  json r = result_record("s.a", job, "0", std::vector<double>(12, 100.0));
  r["inventory"] = {{"gpus", {gpu}}, {"driver", "550.54"}, {"libtorch_version", libtorch}, {"cpu_count", 16}};
  r["dataset"] = {{"name", "fake_imagenet"}, {"synthetic", synthetic}};
  r["milarun"] = {{"version", "0.4.0"}, {"commit", "abc123"}};
  return r;
}

std::string report_of(const json& summary) {
  std::ostringstream out;
  print_report(build_report(summary, json(), json(), 0, false, ""), out);
  return out.str();
}

}  // namespace

TEST(MixedSetups, RunsOfTwoMachinesAveragedInOneMeanAreFlaggedInTheSummaryAndTheReport) {
  const auto dir = result_dir("mixed_machines");
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", run_on("0.0", "NVIDIA A100-SXM4-80GB", "2.6.0"));
  write_json(dir / "s.a.J1.0.20260101-000000-000001.json", run_on("1.0", "Tesla V100-SXM2-32GB", "1.13.1"));
  std::vector<std::string> warnings;
  const json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.a"]["n"], 2);  // both counted: the original's mean, kept
  EXPECT_EQ(summary["s.a"]["mixed_setups"], json::parse(R"({"gpu_model": ["NVIDIA A100-SXM4-80GB",
      "Tesla V100-SXM2-32GB"], "libtorch_version": ["1.13.1", "2.6.0"]})"))
      << summary.dump();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("s.a averages runs made on different machines or set-ups (gpu_model: "
                             "NVIDIA A100-SXM4-80GB | Tesla V100-SXM2-32GB; libtorch_version: 1.13.1 | 2.6.0)"),
            std::string::npos)
      << warnings[0];
  EXPECT_EQ(summary_problem(summary, "s.json"), "");  // a summary of ours stays a valid baseline
  const std::string report = report_of(summary);
  EXPECT_NE(report.find("MIXED SET-UPS: s.a averages runs made on different machines or set-ups (gpu_model: "
                        "NVIDIA A100-SXM4-80GB | Tesla V100-SXM2-32GB; libtorch_version: 1.13.1 | 2.6.0): its mean "
                        "describes none of them"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("[mixed: gpu_model, libtorch_version]"), std::string::npos) << report;  // beside the numbers
  std::ostringstream against;  // as a --compare baseline: its flag is shown as the baseline's
  print_report(build_report(summary, json(), summary, 0, false, ""), against);
  EXPECT_NE(against.str().find("IN THE BASELINE: MIXED SET-UPS: s.a"), std::string::npos) << against.str();
}

TEST(MixedSetups, SyntheticAndRealDataOrAnotherBuildOfMilarunAreMixedSetUpsToo) {
  const auto dir = result_dir("mixed_data");
  json rebuilt = run_on("1.0", "NVIDIA H200", "2.11.0", /*synthetic=*/false);
  rebuilt["milarun"]["commit"] = "def456";
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", run_on("0.0", "NVIDIA H200", "2.11.0"));
  write_json(dir / "s.a.J1.0.20260101-000000-000001.json", rebuilt);
  std::vector<std::string> warnings;
  const json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.a"]["mixed_setups"],
            json::parse(R"J({"dataset": ["fake_imagenet (real)", "fake_imagenet (synthetic)"],
                             "milarun": ["0.4.0 (abc123)", "0.4.0 (def456)"]})J"))
      << summary.dump();
}

// A result of the original (Python) milabench beside ours: two
// implementations of the test in one mean.
TEST(MixedSetups, AResultOfTheOriginalBesideOursIsAMixedSetUp) {
  const auto dir = result_dir("mixed_original");
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", run_on("0.0", "NVIDIA H200", "2.11.0"));
  write_json(dir / "s.a.J1.0.20260101-000000-000001.json",
             result_record("s.a", "1.0", "0", std::vector<double>(12, 90)));
  std::vector<std::string> warnings;
  const json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.a"]["mixed_setups"]["milarun"],
            json::parse(R"J(["0.4.0 (abc123)", "not recorded (the original milabench?)"])J"))
      << summary.dump();
  EXPECT_EQ(summary["s.a"]["inventory"]["milarun"], json::parse(R"J(["0.4.0 (abc123)"])J"));  // unchanged
}

// Only the runs the mean averages count: a failed run of another machine is
// in the inventory, but not a mixed set-up; runs of one set-up flag nothing.
TEST(MixedSetups, OneSetUpOrAFailedRunOfAnotherFlagsNothing) {
  const auto dir = result_dir("one_setup");
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", run_on("0.0", "NVIDIA H200", "2.11.0"));
  write_json(dir / "s.a.J1.0.20260101-000000-000001.json", run_on("1.0", "NVIDIA H200", "2.11.0"));
  json failed = run_on("2.0", "Tesla V100-SXM2-32GB", "1.13.1");
  failed["success"] = false;
  failed["failure_kind"] = "exception";
  write_json(dir / "s.a.J2.0.FAIL.20260101-000000-000001.json", failed);
  std::vector<std::string> warnings;
  const json summary = summarize_directory(dir.string(), warnings);
  EXPECT_FALSE(summary["s.a"].contains("mixed_setups")) << summary.dump();
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(summary["s.a"]["inventory"]["gpu_model"].size(), 2u);  // what the folder holds, as before
  EXPECT_EQ(report_of(summary).find("MIXED SET-UPS"), std::string::npos);
}
