// How the machine was configured, recorded beside its rates: the GPUs'
// enforced power limits against their defaults (NVML) and the CPUs' cpufreq
// governors. A lowered GPU power limit is flagged: the rates are the
// machine's as configured, not its GPUs' at their default.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "monitor/inventory.hpp"
#include "monitor_fakes.hpp"
#include "report/evidence.hpp"
#include "report/summary_flags.hpp"
#include "scratch_dir.hpp"

using namespace milabench;
using nlohmann::json;

TEST(MachineConfig, GpuPowerLimitsAreReadFromNvmlPerGpu) {
  EXPECT_EQ(gpu_power_limits(test::fake_nvml()),
            json::parse(R"([{"limit_w": 400, "default_w": 400}, {"limit_w": 400, "default_w": 400}])"));
  ::setenv("FAKE_NVML_POWER_LIMIT_MW", "300000", 1);  // nvidia-smi -i 1 -pl 300
  const json lowered = gpu_power_limits(test::fake_nvml());
  ::unsetenv("FAKE_NVML_POWER_LIMIT_MW");
  EXPECT_EQ(lowered, json::parse(R"([{"limit_w": 400, "default_w": 400}, {"limit_w": 300, "default_w": 400}])"));
}

TEST(MachineConfig, CpuGovernorsAreTheDistinctOnesOfTheCpus) {
  namespace fs = std::filesystem;
  const std::string root = test::scratch_dir("machine_config");
  for (auto [cpu, governor] : {std::pair{"cpu0", "performance"}, {"cpu1", "powersave"}, {"cpu2", "performance"}}) {
    fs::create_directories(root + "/" + cpu + "/cpufreq");
    std::ofstream(root + "/" + cpu + "/cpufreq/scaling_governor") << governor << "\n";
  }
  fs::create_directories(root + "/cpufreq/policy0");  // not a CPU
  fs::create_directories(root + "/cpu3");             // a CPU without cpufreq
  EXPECT_EQ(cpu_governors(root), (std::vector<std::string>{"performance", "powersave"}));
  EXPECT_TRUE(cpu_governors(root + "/none").empty());
  EXPECT_FALSE(cpu_boost(root).has_value()) << "no boost file: unknown, not off";
  fs::create_directories(root + "/intel_pstate");
  std::ofstream(root + "/intel_pstate/no_turbo") << "1\n";
  EXPECT_EQ(cpu_boost(root), false);
  std::ofstream(root + "/cpufreq/boost") << "1\n";  // acpi-cpufreq's file comes first
  EXPECT_EQ(cpu_boost(root), true);
}

TEST(MachineConfig, TheResultInventorySaysWhichGpuPowerLimitWasLowered) {
  json doc = {{"inventory",
               {{"gpus", {"A", "B"}},
                {"gpu_power_limits", json::parse(R"([{"limit_w": 400, "default_w": 400},
                                                     {"limit_w": 300, "default_w": 400}])")},
                {"cpu_governors", {"performance", "powersave"}},
                {"cpu_boost", false}}}};
  json inv = result_inventory(doc);
  EXPECT_EQ(inv["gpu_power_limit"], "GPU 1: 300 W of 400 W default");
  EXPECT_EQ(inv["cpu_governor"], "performance,powersave");
  EXPECT_EQ(inv["cpu_boost"], "off");
  doc["inventory"]["gpu_power_limits"][1]["limit_w"] = 400;
  EXPECT_EQ(result_inventory(doc)["gpu_power_limit"], kDefaultPowerLimit);
  doc["inventory"]["gpu_power_limits"] = json::parse(R"([{"limit_w": null, "default_w": null}])");
  doc["inventory"]["cpu_governors"] = json::array();
  doc["inventory"]["cpu_boost"] = nullptr;
  inv = result_inventory(doc);
  EXPECT_FALSE(inv.contains("gpu_power_limit")) << "unread is not a default";
  EXPECT_FALSE(inv.contains("cpu_governor"));
  EXPECT_FALSE(inv.contains("cpu_boost"));
}

TEST(MachineConfig, ALoweredGpuPowerLimitIsFlaggedInTheReport) {
  const json summary = {{"s.a", {{"inventory", {{"gpu_power_limit", {"GPU 1: 300 W of 400 W default"}}}}}},
                        {"s.b", {{"inventory", {{"gpu_power_limit", {kDefaultPowerLimit}}}}}}};
  const auto lines = summary_flag_lines(summary);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("POWER LIMIT: s.a ran on a machine whose GPUs' power limit was lowered (GPU 1: 300 W of "
                           "400 W default)",
                           0),
            0u)
      << lines[0];
}

// A GPU split into MIG instances (nvidia-smi mig -cgi ...): CUDA sees each
// instance as a device, so a run on one measures a fraction of the GPU the
// inventory names. Recorded per GPU and flagged.
TEST(MachineConfig, MigModeAndItsInstancesAreReadFromNvmlPerGpu) {
  EXPECT_EQ(gpu_mig(test::fake_nvml()),
            json::parse(R"([{"mig": null, "instances": []}, {"mig": false, "instances": []}])"));
  ::setenv("FAKE_NVML_MIG", "1", 1);
  const json split = gpu_mig(test::fake_nvml());
  ::unsetenv("FAKE_NVML_MIG");
  EXPECT_EQ(split, json::parse(R"([{"mig": null, "instances": []},
      {"mig": true, "instances": ["Fake GPU B MIG 1g.10gb", "Fake GPU B MIG 3g.40gb"]}])"));
}

TEST(MachineConfig, AMachineWithGpusSplitIntoMigInstancesIsFlaggedInTheReport) {
  json doc = {{"inventory", {{"gpus", {"A", "B"}}, {"gpu_mig", json::parse(R"([{"mig": null, "instances": []},
      {"mig": true, "instances": ["NVIDIA A100-SXM4-80GB MIG 1g.10gb", "NVIDIA A100-SXM4-80GB MIG 3g.40gb"]}])")}}}};
  EXPECT_EQ(result_inventory(doc)["gpu_mig"], "GPU 1: 1g.10gb, 3g.40gb");
  doc["inventory"]["gpu_mig"][1] = {{"mig", false}, {"instances", json::array()}};
  EXPECT_EQ(result_inventory(doc)["gpu_mig"], kMigOff);
  doc["inventory"]["gpu_mig"][1]["mig"] = nullptr;
  EXPECT_FALSE(result_inventory(doc).contains("gpu_mig")) << "unread is not off";
  const json summary = {{"s.a", {{"inventory", {{"gpu_mig", {"GPU 1: 1g.10gb, 3g.40gb"}}}}}},
                        {"s.b", {{"inventory", {{"gpu_mig", {kMigOff}}}}}}};
  const auto lines = summary_flag_lines(summary);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "MIG: s.a ran on a machine whose GPUs are split into MIG instances (GPU 1: 1g.10gb, 3g.40gb): a run there "
            "has one instance, a fraction of the GPU its inventory names, so its rate is not that GPU's");
}
