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

TEST(ProfilesAndRegistry, TheStandardProfileRunsEveryRegisteredWorkload) {
  const Profile standard = load_profile(MILABENCH_SOURCE_DIR "/profiles/standard.json");
  std::set<std::string> used;
  for (const auto& t : standard.tests)
    if (const WorkloadInfo* info = find_workload(t.experiment)) used.insert(info->name);
  for (const auto& info : workload_registry())
    EXPECT_TRUE(used.count(info.name)) << info.name << " is registered but profiles/standard.json does not run it";
}
