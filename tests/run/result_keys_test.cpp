// The writer and the reader of a result agree: what the harness writes
// (src/run/result_keys: the harness's document, device keys, the meter's timing entry, written by
// results/result_document) reads back through the one typed ResultRecord (src/results) that summary, resume and rerun
// use, with the original's key names and types.
#include "run/result_keys.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <regex>
#include <string>

#include "results/result_record.hpp"

using namespace milabench;

namespace {

// Sets an environment variable for one scope, restoring the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* key, const char* value) : key_(key) {
    if (const char* old = std::getenv(key)) old_ = old;
    if (value)
      setenv(key, value, 1);
    else
      unsetenv(key);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(key_, old_->c_str(), 1);
    else
      unsetenv(key_);
  }

 private:
  const char* key_;
  std::optional<std::string> old_;
};

// A meter driven by a fake clock: three 0.5 s slices of 10 examples, then
// a partial one of 5 examples in 0.25 s.
RateMeter finished_meter(double& now) {
  RateMeter m(MeterOptions{}, [&now] { return now; }, {});
  for (int i = 0; i < 3; ++i) {
    m.begin();
    now += 0.5;
    m.step(10);
  }
  m.begin();
  now += 0.25;
  m.step(5);
  m.finish();
  return m;
}

nlohmann::json written_result(const RunIdentity& id, const TorchSettings& torch) {
  const WorkloadInfo* info = find_workload("polynome");
  EXPECT_NE(info, nullptr);
  ResultDocument d = harness_document(id, *info);
  d.device = device_keys(torch, d.description->inventory.value("cpu_model", std::string("cpu")));
  double now = 100;
  RateMeter meter = finished_meter(now);
  d.timings = {{"train", train_timing(meter, {{"loss", 0.5}, {"count", 35}}, 1.6e9)}};
  return result_json(d);
}

}  // namespace

TEST(ResultKeys, WhatTheHarnessWritesReadsBackAsTheRecord) {
  ScopedEnv cvd("CUDA_VISIBLE_DEVICES", nullptr);
  ScopedEnv part("MILARUN_CPU_PARTITION", "3");
  RunIdentity id{"cpu.polynome.0", "7.1", "/data", "/out", {"milarun", "run"}, {"--max-count", "35"}};
  nlohmann::json doc = written_result(id, TorchSettings{});
  EXPECT_EQ(doc["schema_version"], kResultSchemaVersion);

  std::string why;
  auto rec = parse_result_record(doc, &why);
  ASSERT_TRUE(rec) << why;
  EXPECT_EQ(rec->name, "cpu.polynome.0");
  EXPECT_EQ(rec->job_id, "7.1");
  EXPECT_TRUE(rec->counted());
  EXPECT_EQ(rec->experiment, "milarun.models.polynome:main");
  EXPECT_EQ(rec->dataroot, "/data");
  EXPECT_EQ(rec->arguments, (std::vector<std::string>{"--max-count", "35"}));
  EXPECT_TRUE(rec->success);
  EXPECT_EQ(rec->device_count, 0);
  EXPECT_EQ(rec->cpu_partition, "3");  // recorded in environ, read back for per-device grouping
  EXPECT_EQ(rec->pergpu_device(), "3");
  ASSERT_EQ(rec->trains.size(), 1u);
  EXPECT_EQ(rec->trains[0].key, "train");
  EXPECT_EQ(rec->trains[0].rates, (std::vector<double>{20, 20, 20, 20}));

  // The original's types: "device" an int, "devices" a list, "gpu" a name.
  EXPECT_TRUE(doc["device"].is_number_integer());
  EXPECT_EQ(doc["device"], 3);
  EXPECT_EQ(doc["devices"], nlohmann::json::array({3}));
  EXPECT_TRUE(doc["gpu"].is_string());
  EXPECT_FALSE(doc["gpu"].get<std::string>().empty());
}

TEST(ResultKeys, TimingEntryHasTheRateLoggersKeysAndDropsProgressMetrics) {
  ScopedEnv part("MILARUN_CPU_PARTITION", nullptr);
  RunIdentity id{"polynome", "", "", "", {}, {}};
  nlohmann::json doc = written_result(id, TorchSettings{});
  const auto& t = doc["timings"]["train"];
  EXPECT_EQ(t["type"], "milabench.experiment.RateLogger");
  EXPECT_DOUBLE_EQ(t["time"].get<double>(), 1.75);
  EXPECT_DOUBLE_EQ(t["wall_time"].get<double>(), 1.75);
  EXPECT_EQ(t["count"], 35);
  EXPECT_EQ(t["metrics"], (nlohmann::json{{"loss", 0.5}}));  // count/eta/rate are progress, not metrics
  const std::regex stamp(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?)");
  EXPECT_TRUE(std::regex_match(t["start"].get<std::string>(), stamp)) << t["start"];
  EXPECT_TRUE(std::regex_match(t["end"].get<std::string>(), stamp)) << t["end"];
  EXPECT_TRUE(doc["devices"].empty());
  EXPECT_TRUE(doc["device"].is_null());

  // A hand run has no job id: written as null, read as not counted.
  EXPECT_TRUE(doc["job_id"].is_null());
  auto rec = parse_result_record(doc);
  ASSERT_TRUE(rec);
  EXPECT_FALSE(rec->counted());
}

TEST(ResultKeys, DatetimeIsPythonsStrOfLocalTime) {
  {
    ScopedEnv tz("TZ", "UTC");
    tzset();
    EXPECT_EQ(python_datetime_string(1591014896.000789), "2020-06-01 12:34:56.000789");
    EXPECT_EQ(python_datetime_string(1591014896.0), "2020-06-01 12:34:56");  // Python drops a zero fraction
    EXPECT_EQ(python_datetime_string(1591014896.9999996), "2020-06-01 12:34:57");
  }
  tzset();
}
