// profiles/cpu.json is the standard suite sized for a small CPU machine: the
// same tests under the same names, the same experiments and arguments (only
// the device flag, batch sizes and --max-count differ), weights for every
// result name it produces, and scaling.1 and scaling.2 on 2 CPU partitions.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "launch/devices.hpp"
#include "suite/plan.hpp"
#include "suite/profile.hpp"

using namespace milabench;

namespace {

std::string source_dir() {
  const char* src = std::getenv("MILABENCH_SOURCE");
  return src ? src : "";
}

const TestSpec* find_test(const Profile& p, const std::string& name) {
  for (const auto& t : p.tests)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace

TEST(CpuProfile, RunsEveryStandardTestWithTheSameExperimentAndArguments) {
  if (source_dir().empty()) GTEST_SKIP() << "MILABENCH_SOURCE not set";
  Profile standard = load_profile(source_dir() + "/profiles/standard.json");
  Profile cpu = load_profile(source_dir() + "/profiles/cpu.json");
  ASSERT_EQ(cpu.tests.size(), standard.tests.size());
  ASSERT_FALSE(standard.tests.empty());
  const std::set<std::string> may_differ = {"--batch-size", "--max-count"};
  for (std::size_t i = 0; i < standard.tests.size(); ++i) {
    const TestSpec& s = standard.tests[i];
    const TestSpec* c = find_test(cpu, s.name);
    ASSERT_NE(c, nullptr) << s.name << " is missing from profiles/cpu.json";
    EXPECT_EQ(c->experiment, s.experiment) << s.name;
    EXPECT_EQ(c->partition, s.partition) << s.name;
    EXPECT_TRUE(c->arguments.value("--no-cuda", false)) << s.name << " must run with --no-cuda";
    EXPECT_FALSE(c->arguments.contains("--cuda")) << s.name;
    ASSERT_TRUE(c->arguments.contains("--max-count")) << s.name;
    for (const auto& [k, v] : s.arguments.items()) {
      if (k == "--cuda" || k == "--no-cuda") continue;
      ASSERT_TRUE(c->arguments.contains(k)) << s.name << " lost " << k;
      if (!may_differ.count(k)) EXPECT_EQ(c->arguments[k], v) << s.name << " " << k;
    }
    for (const auto& [k, v] : c->arguments.items())
      EXPECT_TRUE(s.arguments.contains(k) || k == "--no-cuda") << s.name << " adds " << k;
  }
}

TEST(CpuProfile, TwoCpusRunScalingOneAndTwoAndEveryResultHasAWeight) {
  if (source_dir().empty()) GTEST_SKIP() << "MILABENCH_SOURCE not set";
  Profile cpu = load_profile(source_dir() + "/profiles/cpu.json");
  PlanInputs in;
  in.self_exe = "milarun";
  in.dataroot = "/data";
  in.outdir = "/out";
  in.devices = default_device_count(0, 2);
  ASSERT_EQ(in.devices, 2);
  in.cpu_partitions = partition_cpus({0, 1}, in.devices);
  in.program_exists = [](const std::string&) { return true; };
  in.pick_port = [] { return 29500; };
  JobPlan plan = build_plan(cpu, in);

  std::ifstream wf(source_dir() + "/weights/cpu.json");
  auto weights = nlohmann::json::parse(wf);
  std::ifstream sf(source_dir() + "/weights/standard.json");
  auto standard_weights = nlohmann::json::parse(sf);
  std::set<std::string> names;
  for (const auto& wave : plan.waves) {
    names.insert(wave.front().name);
    EXPECT_TRUE(weights.contains(wave.front().name)) << wave.front().name << " has no weight";
  }
  // One name per per-gpu test, one per device count (1 and 2) per gpu-progression test (scaling).
  std::size_t expected = 0;
  for (const auto& t : cpu.tests) expected += t.partition == PartitionType::GpuProgression ? 2 : 1;
  EXPECT_EQ(names.size(), expected);
  EXPECT_TRUE(names.count("cpu.scaling.1") && names.count("cpu.scaling.2"));
  for (const auto& [k, v] : weights.items()) {
    EXPECT_EQ(v, standard_weights["standard" + k.substr(3)]) << k << " weighs as in weights/standard.json";
    // A weighted test the small machine never runs would make its main job a partial suite.
    EXPECT_TRUE(names.count(k)) << k << " is weighted but a 2-CPU machine does not run it";
  }
}
