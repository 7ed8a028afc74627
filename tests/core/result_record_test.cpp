// The result record (src/results): file names, failure kinds, device ids,
// the typed read of a result, and the summary's grouping rules of the
// original's report.py that rest on it.
#include "results/result_record.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include "report/report.hpp"
#include "report/report_data.hpp"
#include "report/summary.hpp"
#include "result_files.hpp"
#include "results/failure_kind.hpp"
#include "results/result_name.hpp"
#include "results/result_scan.hpp"
#include "results/version.hpp"
#include "results/stand_ins.hpp"
#include "results/workload_outputs.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace milabench;

TEST(ResultName, StampIsUtcWithMicroseconds) {
  // 2020-06-01 12:34:56.000789 UTC, whatever the local time zone.
  const char* tz = std::getenv("TZ");
  const std::string saved = tz ? tz : "";
  setenv("TZ", "America/Montreal", 1);
  tzset();
  const long long us = 1591014896LL * 1000000 + 789;
  EXPECT_EQ(result_file_name("standard.vae", "0.1", false, us), "standard.vae.J0.1.20200601-123456-000789.json");
  EXPECT_EQ(result_file_name("standard.vae", "2.0", true, us), "standard.vae.J2.0.FAIL.20200601-123456-000789.json");
  if (tz)
    setenv("TZ", saved.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
  std::regex now(R"(s\.t\.J0\.\d{8}-\d{6}-\d{6}\.json)");
  EXPECT_TRUE(std::regex_match(result_file_name("s.t", "0", false), now));
}

TEST(ResultName, ParsesWhatItWrites) {
  for (const std::string name : {"standard.vae", "a.Jb.c", "x.J2", "s.scaling.2"})
    for (const std::string id : {"0", "1.3", "0-rank1"})
      for (bool failed : {false, true}) {
        auto p = parse_result_file_name(result_file_name(name, id, failed, 1591014896000000LL));
        ASSERT_TRUE(p) << name << " " << id;
        EXPECT_EQ(p->name, name);
        EXPECT_EQ(p->job_id, id);
        EXPECT_EQ(p->failed, failed);
        EXPECT_EQ(p->stamp, "20200601-123456-000000");
      }
}

TEST(ResultName, RefusesOtherNames) {
  for (const std::string f :
       {"summary.json", "x.J0.json", "x.Jabc.20200601-123456-000000.json", "x.J0.20200601-123456.json",
        "x.J0.20200601-123456-000000.json.tmp.12", ".J0.20200601-123456-000000.json"})
    EXPECT_FALSE(parse_result_file_name(f)) << f;
}

TEST(FailureKind, EveryKindRoundTrips) {
  for (auto k : {FailureKind::Exception, FailureKind::Oom, FailureKind::NonFiniteLoss, FailureKind::BadInput,
                 FailureKind::Exit, FailureKind::Signal, FailureKind::Timeout, FailureKind::Interrupted,
                 FailureKind::NotStarted, FailureKind::GroupMemberFailed, FailureKind::BadResult, FailureKind::Unknown})
    EXPECT_EQ(parse_failure_kind(failure_kind_name(k)), k);
  EXPECT_FALSE(parse_failure_kind("out of memory"));
  EXPECT_TRUE(failure_is_unfinished(FailureKind::Interrupted));
  EXPECT_FALSE(failure_is_unfinished(FailureKind::Oom));
}

TEST(DeviceIds, IntsAsTheOriginalAndStringsOtherwise) {
  EXPECT_EQ(device_ids_json("0,1,3"), json({0, 1, 3}));
  EXPECT_EQ(device_ids_json("2"), json({2}));
  EXPECT_EQ(device_ids_json(""), json::array());
  EXPECT_EQ(device_ids_json("GPU-12ab"), json({"GPU-12ab"}));
}

TEST(ResultRecord, ReadsTheKeysTheSuiteUses) {
  json doc = test::result_record("s.t", "0.1", "1", {1, 2, 3});
  doc["timings"]["train_1"] = {{"rates", {4, nullptr}}};
  doc["failure_kind"] = "oom";
  auto r = parse_result_record(doc);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->job_id, "0.1");
  EXPECT_TRUE(r->counted());
  EXPECT_EQ(r->failure_kind, FailureKind::Oom);
  ASSERT_EQ(r->trains.size(), 2u);
  EXPECT_TRUE(std::isnan(r->trains[1].rates[1]));
  EXPECT_EQ(r->pergpu_device(), "1");
  EXPECT_EQ(*r->program_time, 10.0);
  std::string why;
  EXPECT_FALSE(parse_result_record(json::array(), &why));
  EXPECT_NE(why.find("name"), std::string::npos);
}

TEST(ResultRecord, SubJobUnderEitherSpellingIsNotCounted) {
  json a = test::result_record("s.t", "0", "0", {1});
  a["sub_job"] = true;
  json b = test::result_record("s.t", "0", "0", {1});
  b["subjob"] = true;  // files of earlier milarun versions
  EXPECT_FALSE(parse_result_record(a)->counted());
  EXPECT_FALSE(parse_result_record(b)->counted());
  EXPECT_FALSE(parse_result_record(test::result_record("s.t", nullptr, "0", {1}))->counted());
}

// What a workload adds (Session's typed outputs) reads back through the
// typed record: metrics merged over the harness's, the stand-in derived from
// the dataset, the distributed block's world size, a rank's sub-job mark.
TEST(ResultRecord, WorkloadOutputsReadBackThroughTheTypedRecord) {
  json doc = test::result_record("s.t", "0.1", "0", {1, 2, 3});
  doc["metrics"] = {{"from_harness", 1}};
  WorkloadOutputs w;
  w.metrics = {{"loss", 2.5}, {"world_size", 2}};
  w.model_parameters = 42;
  w.dataset = json{{"name", "pong"}, {"stand_in", kPongLikeGame}};
  w.distributed = json{{"rank", 1}, {"world_size", 2}};
  w.sub_job = true;
  write_workload_outputs(doc, w);
  auto r = parse_result_record(doc);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->metrics, (json{{"from_harness", 1}, {"loss", 2.5}, {"world_size", 2}}));
  EXPECT_EQ(doc["model"]["parameters"], 42);
  EXPECT_EQ(r->stand_ins, (std::vector<std::string>{kPongLikeGame}));
  EXPECT_EQ(r->world_size, 2);
  EXPECT_TRUE(r->sub_job);
  EXPECT_FALSE(r->counted());
  EXPECT_EQ(r->pergpu_device(), "");  // a group of two is no one device's result
  // Nothing set: the document is left as it was.
  json plain = test::result_record("s.t", "0.1", "0", {1});
  const json before = plain;
  write_workload_outputs(plain, WorkloadOutputs{});
  EXPECT_EQ(plain, before);
}

TEST(ResultRecord, GroupsTheOriginalsGpuProgressionByDeviceCount) {
  json orig = test::result_record("standard.scaling", "0.1", "0,1", {1});
  orig["job"] = {{"partition_scheme", {{"type", "gpu-progression"}}}};
  orig["device_count"] = 2;
  EXPECT_EQ(parse_result_record(orig)->group(), "standard.scaling.2");
  orig["job"]["partition_scheme"]["type"] = "per-gpu";
  EXPECT_EQ(parse_result_record(orig)->group(), "standard.scaling");
  EXPECT_EQ(parse_result_record(test::result_record("s.scaling.2", "0", "0", {1}))->group(), "s.scaling.2");
}

TEST(ResultRecord, PerGpuDeviceIsTheOneVisibleDevice) {
  EXPECT_EQ(parse_result_record(test::result_record("s.t", "0", "0,1", {1}))->pergpu_device(), "");
  json cpu = test::result_record("s.t", "0", nullptr, {1});
  cpu["environ"]["MILARUN_CPU_PARTITION"] = "3";  // a machine without GPUs
  EXPECT_EQ(parse_result_record(cpu)->pergpu_device(), "3");
  json rank0 = test::result_record("s.scaling.2", "0", "0", {1});
  rank0["distributed"] = {{"world_size", 2}};
  EXPECT_EQ(parse_result_record(rank0)->pergpu_device(), "");
}

namespace {
std::vector<double> flat(double v, int n = 30) { return std::vector<double>(n, v); }
}  // namespace

TEST(SummaryAsReportPy, ReadsSubFoldersAndCountsSuccessesOnly) {
  fs::path d = test::result_dir("subfolders");
  fs::create_directories(d / "run1" / "deeper");
  json ok = test::result_record("s.t", "0.0", "0", flat(100));
  ok["gpu_monitor"] = {{"0", {{"memory", {{"max", 700}}}}}, {"1", {{"memory", {{"max", 9000}}}}}};
  test::write_json(d / "s.t.J0.0.20200601-000000-000000.json", ok);
  json other = test::result_record("s.t", "1.0", "0", flat(300));
  other["timings"]["program"]["time"] = 20.0;
  test::write_json(d / "run1" / "deeper" / "s.t.J1.0.20200601-000000-000000.json", other);
  json failed = test::result_record("s.t", "2.0", "0", flat(1), false);
  failed["timings"]["program"]["time"] = 999.0;
  failed["gpu_monitor"] = {{"0", {{"memory", {{"max", 80000}}}}}};
  test::write_json(d / "run1" / "s.t.J2.0.FAIL.20200601-000000-000000.json", failed);
  std::vector<std::string> w;
  json s = summarize_directory(d.string(), w);
  EXPECT_TRUE(w.empty());
  const json& t = s["s.t"];
  EXPECT_EQ(t["n"], 3);
  EXPECT_EQ(t["failures"], 1);
  EXPECT_EQ(t["train"]["n"], 2);
  EXPECT_DOUBLE_EQ(t["train"]["mean"].get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(t["total"]["max"].get<double>(), 20.0);  // not the failed run's 999 s
  // The run's own device (CUDA_VISIBLE_DEVICES=0), not every GPU it saw; never the failed run's.
  EXPECT_DOUBLE_EQ(t["peak_memory"].get<double>(), 700.0);
  EXPECT_EQ(t["pergpu"]["0"]["n"], 2);
  fs::remove_all(d);
}

TEST(SummaryAsReportPy, RecordsTheMilarunVersionsInTheInventory) {
  fs::path d = test::result_dir("versions");
  json r = test::result_record("s.t", "0.0", "0", flat(100));
  r["milarun"] = version_record();
  test::write_json(d / "a.json", r);
  std::vector<std::string> w;
  json s = summarize_directory(d.string(), w);
  ASSERT_EQ(s["s.t"]["inventory"]["milarun"].size(), 1u);
  EXPECT_NE(s["s.t"]["inventory"]["milarun"][0].get<std::string>().find(milarun_commit()), std::string::npos);
  fs::remove_all(d);
}

TEST(ResultScan, FindsJsonFilesButNotTemporaryOnes) {
  fs::path d = test::result_dir("scan");
  fs::create_directories(d / "sub");
  test::write_text(d / "a.json", "{}");
  test::write_text(d / "sub" / "b.json", "{}");
  test::write_text(d / ".hidden.json", "{}");
  test::write_text(d / "c.json.tmp.42", "{");
  EXPECT_EQ(json_files_in(d.string()).size(), 1u);
  EXPECT_EQ(json_files_in(d.string(), true).size(), 2u);
  EXPECT_TRUE(json_files_in((d / "missing").string()).empty());
  fs::remove_all(d);
}

TEST(Version, IsRecordedAndPrintable) {
  EXPECT_FALSE(std::string(milarun_version()).empty());
  EXPECT_FALSE(std::string(milarun_commit()).empty());
  EXPECT_NE(version_line().find(milarun_version()), std::string::npos);
  EXPECT_EQ(version_record()["commit"], milarun_commit());
}

TEST(ReportAsReportPy, PerfAdjPenaltyIsClampedAtPerf) {
  json s = {
      {"s.x", {{"n", 4}, {"failures", 1}, {"train", {{"mean", 200.0}, {"std", 300.0}}}, {"pergpu", json::object()}}}};
  ReportRow r = make_row("s.x", s["s.x"]);
  EXPECT_DOUBLE_EQ(r.perf_adj, 0.0);  // (1 - 1/4) * (200 - min(300, 200)), never negative
  s["s.x"]["train"]["std"] = 20.0;
  EXPECT_DOUBLE_EQ(make_row("s.x", s["s.x"]).perf_adj, 0.75 * 180.0);
}

TEST(ReportAsReportPy, BaselineAdjustmentHasNoFailureFactor) {
  json a = {
      {"s.x", {{"n", 2}, {"failures", 0}, {"train", {{"mean", 100.0}, {"std", 10.0}}}, {"pergpu", json::object()}}}};
  json b = {{"s.x", {{"n", 4}, {"failures", 2}, {"train", {{"mean", 100.0}, {"std", 10.0}}}}}};
  ReportData d = build_report(a, json(), b, 0, false, "");
  EXPECT_DOUBLE_EQ(d.rows[0].perf_base_adj, 90.0);  // report.py: perf_base - min(std, perf_base)
  EXPECT_DOUBLE_EQ(d.base_score, 90.0);
  EXPECT_DOUBLE_EQ(d.score_ratio, 1.0);
}

TEST(ReportAsReportPy, ScoreLabelsAreTheOriginals) {
  json a = {
      {"s.x", {{"n", 2}, {"failures", 0}, {"train", {{"mean", 100.0}, {"std", 10.0}}}, {"pergpu", json::object()}}}};
  ReportData d = build_report(a, json(), a, 5000.0, false, "");
  std::ostringstream out;
  print_report(d, out);
  const std::string t = out.str();
  for (const char* label :
       {"Failure rate:", "Score:", "Score (baseline):", "Ratio:", "Price ($):", "RPP (Price / Score):"})
    EXPECT_NE(t.find(std::string("\n") + label), std::string::npos) << label << "\n" << t;
  EXPECT_NE(t.find("(PASS)"), std::string::npos) << t;
}
