// The writer side of the result record (results/result_document) and its
// reader (results/result_record) agree: every field a writer fills — the run
// harness's document and the orchestrator's failure results — reads back
// through parse_result_record, the one read that summary, resume, rerun, the
// store and the report use.
#include "results/result_document.hpp"

#include <gtest/gtest.h>

#include <csignal>

#include "results/result_record.hpp"
#include "results/stand_ins.hpp"
#include "suite/run_outcome.hpp"

using namespace milabench;
using nlohmann::json;

namespace {

// A document as the harness fills one for rank 0 of a two-rank group.
ResultDocument harness_like() {
  ResultDocument d;
  d.name = "s.gpt2.0";
  d.job_id = "4.0";
  d.device_list = "0,1";
  d.request = RunRequest{"milarun.models.gpt2:main",
                         "/data",
                         {"--batch-size", "4"},
                         json{{"CUDA_VISIBLE_DEVICES", "0,1"}, {"OMP_NUM_THREADS", "2"}}};
  RunDescription h;
  h.call = {"milarun", "run", "gpt2"};
  h.workload = "gpt2";
  h.count_unit = "tokens";
  h.outdir = "/out";
  h.hostname = "node1";
  h.inventory = {{"cpu_model", "x"}, {"torch_threads", 2}};
  h.milarun = {{"version", "1"}};
  d.description = h;
  d.device = DeviceKeys{"NVIDIA H200", 2, true};
  d.isolation = json{{"cpus", "0-7"}};
  d.gpu_monitor = json{{"0", {{"energy_j", 10.0}}}};
  d.monitor = json{{"samples", 3}};
  d.outputs.metrics = {{"loss", 3.5}, {"shortcuts", {"reduced_decode"}}};
  d.outputs.model_parameters = 124;
  d.outputs.dataset = json{{"name", "llmc_gpt2"}, {"stand_in", kGeneratedData}};
  d.outputs.distributed = json{{"rank", 0}, {"world_size", 2}};
  d.timings = {{"train_0", {{"rates", {1.0, 2.0, 3.0}}, {"count", 6}}},
               {"train_1", {{"rates", {1.5, 2.5, 3.5}}, {"count", 6}}},
               {"program", {{"time", 12.5}}}};
  d.rss_peak_mb = 512;
  return d;
}

}  // namespace

TEST(ResultDocument, EveryFieldTheHarnessFillsReadsBackAsTheRecord) {
  const json doc = result_json(harness_like());
  std::string why;
  const auto r = parse_result_record(doc, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(doc["schema_version"], kResultSchemaVersion);
  EXPECT_EQ(r->name, "s.gpt2.0");
  EXPECT_EQ(r->job_id, "4.0");
  EXPECT_TRUE(r->counted());
  EXPECT_EQ(doc["devices"], json::array({0, 1}));
  EXPECT_TRUE(doc["device"].is_null());  // two devices: no one device
  EXPECT_TRUE(r->success);
  EXPECT_TRUE(doc["error"].is_null());
  EXPECT_FALSE(doc.contains("failure_kind"));
  EXPECT_EQ(r->experiment, "milarun.models.gpt2:main");
  EXPECT_EQ(r->dataroot, "/data");
  EXPECT_EQ(r->arguments, (std::vector<std::string>{"--batch-size", "4"}));
  EXPECT_TRUE(r->arguments_recorded);
  EXPECT_EQ(r->visible_devices, "0,1");
  EXPECT_EQ(r->environ["OMP_NUM_THREADS"], "2");
  EXPECT_EQ(r->device_count, 2);
  EXPECT_EQ(doc["gpu"], "NVIDIA H200");
  EXPECT_EQ(doc["cuda"], true);
  EXPECT_EQ(doc["workload"], "gpt2");
  EXPECT_EQ(doc["count_unit"], "tokens");
  EXPECT_EQ(doc["inventory"]["torch_threads"], 2);
  EXPECT_EQ(doc["isolation"]["cpus"], "0-7");
  EXPECT_EQ(r->gpu_monitor["0"]["energy_j"], 10.0);
  EXPECT_EQ(doc["monitor"]["samples"], 3);
  EXPECT_EQ(r->world_size, 2);
  EXPECT_EQ(r->pergpu_device(), "");
  ASSERT_EQ(r->trains.size(), 2u);
  EXPECT_EQ(r->trains[0].key, "train_0");
  EXPECT_EQ(r->trains[1].rates, (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(r->program_time, 12.5);
  EXPECT_EQ(r->metrics["loss"], 3.5);
  EXPECT_EQ(r->shortcuts, (std::vector<std::string>{"reduced_decode"}));
  EXPECT_EQ(r->stand_ins, (std::vector<std::string>{kGeneratedData}));
  EXPECT_EQ(doc["model"]["parameters"], 124);
  EXPECT_EQ(r->rss_peak_mb, 512);
}

TEST(ResultDocument, AFailureIsWrittenWithItsKindAndError) {
  ResultDocument d = harness_like();
  d.failure = FailureKind::NonFiniteLoss;
  d.error = "loss is nan at step 3";
  const json doc = result_json(d);
  const auto r = parse_result_record(doc);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->success);
  EXPECT_EQ(r->failure_kind, FailureKind::NonFiniteLoss);
  EXPECT_EQ(doc["error"], "loss is nan at step 3");
}

TEST(ResultDocument, ExtraKeysMergeButNeverReplaceTheIdentityOrTheOutcome) {
  ResultDocument d = harness_like();
  d.extra = {{"site", "lab-a"}, {"metrics", {{"note", "x"}}}, {"name", "forged"}, {"success", false}};
  const json doc = result_json(d);
  EXPECT_EQ(doc["site"], "lab-a");
  EXPECT_EQ(doc["metrics"]["note"], "x");
  EXPECT_EQ(doc["metrics"]["loss"], 3.5);  // merged, not replaced
  EXPECT_EQ(doc["name"], "s.gpt2.0");
  EXPECT_EQ(doc["success"], true);
}

TEST(ResultDocument, TheOrchestratorsFailureResultKeepsWhatRerunNeeds) {
  ProcessSpec spec;
  spec.name = "cpu.convnet.0";
  spec.job_id = "7";
  spec.device = "3";
  spec.argv = {"milarun", "run", "convnet", "-d", "/data", "--", "--batch-size", "1_000"};
  spec.env = {{"MILARUN_CPU_PARTITION", "3"}, {"MILARUN_RENDEZVOUS", "x"}};
  ProcessResult r;
  r.started = true;
  r.signal = SIGSEGV;
  r.wall_s = 4.5;
  r.log_path = "/out/logs/cpu.convnet.0.log";
  const json doc = failure_result(spec, r);
  const auto rec = parse_result_record(doc);
  ASSERT_TRUE(rec);
  EXPECT_FALSE(rec->success);
  EXPECT_EQ(rec->failure_kind, FailureKind::Signal);
  EXPECT_EQ(rec->experiment, "convnet");
  EXPECT_EQ(rec->dataroot, "/data");
  EXPECT_EQ(rec->arguments, (std::vector<std::string>{"--batch-size", "1000"}));
  EXPECT_EQ(rec->environ, (json{{"MILARUN_CPU_PARTITION", "3"}}));  // the device, not the rendezvous
  EXPECT_EQ(rec->pergpu_device(), "3");
  EXPECT_EQ(doc["wall_time"], 4.5);
  EXPECT_EQ(doc["log"], "/out/logs/cpu.convnet.0.log");
  EXPECT_TRUE(doc["timings"].empty());
  EXPECT_TRUE(rec->trains.empty());
  // A command that is not `milarun run` records no request.
  spec.argv = {"sh", "-c", "exit 1"};
  const auto bare = parse_result_record(failure_result(spec, r));
  ASSERT_TRUE(bare);
  EXPECT_FALSE(bare->arguments_recorded);
  EXPECT_EQ(bare->experiment, "");
}
