// Real cgroups (CI runs as root with writable v1 cpuset and memory): a child
// in a student group has the group's CPU set as its affinity, and a memory
// hog over its group's limit is OOM-killed and classified as such while a
// sibling in the other group finishes. Groups are made under
// milabench-test-<pid> inside this process's own groups and removed after.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "launch/cgroups.hpp"
#include "launch/devices.hpp"
#include "launch/isolation.hpp"
#include "launch/student_groups.hpp"
#include "suite/jobs.hpp"
#include "sys/cpu_topology.hpp"
#include "test_files.hpp"

using namespace milabench;

namespace {

// Run as a child with MILABENCH_TEST_HOG_MB=N: allocate and touch N MiB,
// then exit 0 — the memory hog of the OOM test (same binary, no helper).
const int hog_mode = [] {
  const char* mb = std::getenv("MILABENCH_TEST_HOG_MB");
  if (!mb) return 0;
  std::size_t bytes = static_cast<std::size_t>(std::atol(mb)) << 20;
  char* p = static_cast<char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (p == MAP_FAILED) _exit(3);
  for (std::size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  _exit(0);
}();

// This process's group path in the hierarchy of `controller` ("" for v2),
// from /proc/self/cgroup; "/" when not listed.
std::string own_group(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    auto a = line.find(':'), b = line.find(':', a + 1);
    std::string ctl = line.substr(a + 1, b - a - 1);
    std::stringstream ss(ctl);
    std::string c;
    while (std::getline(ss, c, ','))
      if (c == controller) return line.substr(b + 1);
    if (controller.empty() && ctl.empty()) return line.substr(b + 1);
  }
  return "/";
}

class RealCgroups : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
    CgroupRoots sys = detect_cgroup_roots();
    CgroupVersion v = usable_version(sys);
    if (v == CgroupVersion::None) GTEST_SKIP() << "no cgroup v1 cpuset+memory nor v2 with those controllers mounted";
    // Nest under our own groups so the test never escapes limits put on it.
    roots_ = v == CgroupVersion::V1
                 ? CgroupRoots{sys.cpuset_v1 + own_group("cpuset"), sys.memory_v1 + own_group("memory"), ""}
                 : CgroupRoots{"", "", sys.unified + own_group("")};
    auto cpus = allowed_cpus();
    if (cpus.size() < 2) GTEST_SKIP() << "needs 2 CPUs for two exclusive groups";
    parent_ = "milabench-test-" + std::to_string(getpid());
    marker_ = "/tmp/" + parent_ + ".marker.json";
    groups_ = std::make_unique<StudentGroups>(roots_, marker_);
    StudentSetup s;
    s.cpu_sets = partition_cpus(cpus, 2);
    s.memory_bytes_each = 100LL << 20;
    s.parent = parent_;
    try {
      groups_->setup(s);
    } catch (const CgroupError& e) {
      groups_->teardown();
      GTEST_SKIP() << "cgroups mounted but not writable here: " << e.what();
    }
    version_ = groups_->version();
  }
  void TearDown() override {
    if (!groups_) return;
    std::filesystem::remove_all("/tmp/" + parent_);  // the children's logs
    for (const auto& line : groups_->teardown()) EXPECT_EQ(line.rfind("kept", 0), std::string::npos) << line;
    EXPECT_FALSE(is_directory(group_dirs(roots_, version_, parent_).cpuset));
  }
  ProcessSpec spec(const std::string& group, std::vector<std::string> argv, const std::string& job) {
    ProcessSpec s;
    s.argv = std::move(argv);
    s.name = "realcg";
    s.job_id = job;
    s.timeout_s = 60;
    s.cgroup = "cpuset,memory:" + parent_ + "/" + group;
    EXPECT_EQ(resolve_isolation(s, roots_, version_), "");
    return s;
  }

  CgroupRoots roots_;
  CgroupVersion version_ = CgroupVersion::None;
  std::string parent_, marker_;
  std::unique_ptr<StudentGroups> groups_;
};

}  // namespace

TEST_F(RealCgroups, ChildAffinityEqualsItsGroupCpuset) {
  auto dir = "/tmp/" + parent_;
  auto s = spec("student1", {"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status; echo \"$MILARUN_ISOLATION\""},
                "0.1");
  auto r = run_wave({s}, dir);
  ASSERT_TRUE(r[0].ok()) << milabench::test::read_text(r[0].log_path);
  GroupInfo g = read_group(roots_, version_, parent_ + "/student1");
  std::istringstream log(milabench::test::read_text(r[0].log_path));
  std::string line, rec;
  std::getline(log, line);
  std::getline(log, rec);
  EXPECT_EQ(parse_cpu_list(line.substr(line.find(':') + 1)), g.cpus) << line;
  auto j = nlohmann::json::parse(rec);
  EXPECT_EQ(j["kind"], "cgroup");
  EXPECT_EQ(j["cpus"], nlohmann::json(g.cpus));
  EXPECT_DOUBLE_EQ(j["memory_limit_mb"].get<double>(), 100.0);
}

TEST_F(RealCgroups, MemoryHogIsOomKilledAndRecordedWhileSiblingFinishes) {
  auto dir = "/tmp/" + parent_;
  auto hog = spec("student0", {"/proc/self/exe"}, "0.0");
  hog.env["MILABENCH_TEST_HOG_MB"] = "300";
  auto ok = spec("student1", {"/bin/sh", "-c", "sleep 0.3; echo finished"}, "0.1");
  auto r = run_wave({hog, ok}, dir);
  EXPECT_FALSE(r[0].ok());
  EXPECT_EQ(r[0].signal, SIGKILL);
  EXPECT_TRUE(r[0].oom_killed);
  auto doc = failure_result(hog, r[0]);
  EXPECT_EQ(doc["failure_kind"], "oom");
  EXPECT_NE(doc["error"].get<std::string>().find("out of memory"), std::string::npos);
  EXPECT_EQ(doc["isolation"]["kind"], "cgroup");
  EXPECT_TRUE(r[1].ok());
  EXPECT_FALSE(r[1].oom_killed);
  EXPECT_EQ(milabench::test::read_text(r[1].log_path), "finished\n");
}
