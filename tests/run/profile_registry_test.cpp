// The shipped profiles and the workload registry agree: every test of every
// profile runs a registered workload whose flags take the profile's
// arguments as `milarun jobs` passes them, and the standard profile runs
// every registered workload. The counts come from the files and the
// registry, never from literals (docs/adding-a-workload.md: a new workload
// fails here until its profile entries parse).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "run/run_app.hpp"
#include "suite/plan.hpp"
#include "suite/profile.hpp"
#include "workloads/workload.hpp"

using namespace milabench;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> shipped_profiles() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(MILABENCH_SOURCE_DIR) / "profiles"))
    if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(ProfilesAndRegistry, EveryProfileTestRunsARegisteredWorkloadThatTakesItsArguments) {
  const auto profiles = shipped_profiles();
  ASSERT_FALSE(profiles.empty());
  for (const auto& path : profiles) {
    const Profile p = load_profile(path.string());
    EXPECT_FALSE(p.tests.empty()) << path;
    for (const auto& t : p.tests) {
      const WorkloadInfo* info = find_workload(t.experiment);
      ASSERT_NE(info, nullptr) << path.filename() << " " << t.name << ": no workload runs " << t.experiment;
      auto w = info->make();
      RunSettings s;
      auto app = configure_run_app(*info, *w, s);
      std::ostringstream out, err;
      EXPECT_EQ(parse_run_args(*app, *info, s, run_arguments(t, {}), out, err), -1)
          << path.filename() << " " << t.name << ": " << err.str();
    }
  }
}

TEST(ProfilesAndRegistry, TheStandardOr2026ProfileRunsEveryRegisteredWorkload) {
  // The 2020 suite's workloads are in profiles/standard.json, the transformer
  // workloads of issue 25 in profiles/2026.json; each in exactly one of them.
  std::set<std::string> standard_used, y2026_used;
  for (const auto& t : load_profile(MILABENCH_SOURCE_DIR "/profiles/standard.json").tests)
    if (const WorkloadInfo* info = find_workload(t.experiment)) standard_used.insert(info->name);
  for (const auto& t : load_profile(MILABENCH_SOURCE_DIR "/profiles/2026.json").tests)
    if (const WorkloadInfo* info = find_workload(t.experiment)) y2026_used.insert(info->name);
  EXPECT_TRUE(y2026_used.count("gpt2"));
  EXPECT_TRUE(y2026_used.count("llama"));
  for (const auto& info : workload_registry()) {
    EXPECT_TRUE(standard_used.count(info.name) || y2026_used.count(info.name))
        << info.name << " is registered but neither profiles/standard.json nor profiles/2026.json runs it";
    EXPECT_FALSE(standard_used.count(info.name) && y2026_used.count(info.name)) << info.name << " is in both";
  }
}
