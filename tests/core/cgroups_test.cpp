// cgroup code against fake roots (plain temp folders): which files set-up,
// status and teardown write and remove, and how launch falls back.
#include "launch/cgroups.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "launch/devices.hpp"
#include "launch/isolation.hpp"
#include "launch/student_groups.hpp"
#include "scratch_dir.hpp"
#include "suite/jobs.hpp"
#include "sys/cpu_topology.hpp"

using namespace milabench;

namespace {

std::string tmpdir() { return milabench::test::scratch_dir("cgroups_test"); }

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
std::string get(const std::string& path) { return read_file_trimmed(path).value_or("<missing>"); }
bool exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

// A v1 layout: cpuset and memory hierarchy roots with the root files the code reads.
struct FakeV1 {
  std::string dir = tmpdir();
  CgroupRoots roots{dir + "/cpuset", dir + "/memory", dir + "/unified"};
  std::string marker = dir + "/run/cgroups.json";
  FakeV1() {
    for (auto d : {roots.cpuset_v1, roots.memory_v1, roots.unified}) ::mkdir(d.c_str(), 0755);
    put(roots.cpuset_v1 + "/cpuset.cpus", "0-3\n");
    put(roots.cpuset_v1 + "/cpuset.mems", "0-1\n");
  }
};

StudentSetup two_students() {
  StudentSetup s;
  s.cpu_sets = {{0, 1}, {2, 3}};
  s.memory_bytes_each = 512LL << 20;
  return s;
}

}  // namespace

TEST(Cgroups, DetectsV1HierarchiesAndUnifiedMountFromMountTable) {
  auto dir = tmpdir();
  put(dir + "/mounts",
      "tmpfs /sys/fs/cgroup tmpfs rw 0 0\n"
      "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
      "cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n"
      "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n"
      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n");
  auto r = detect_cgroup_roots(dir + "/mounts");
  EXPECT_EQ(r.cpuset_v1, "/sys/fs/cgroup/cpuset");
  EXPECT_EQ(r.memory_v1, "/sys/fs/cgroup/memory");
  EXPECT_EQ(r.unified, "/sys/fs/cgroup/unified");
  auto none = detect_cgroup_roots(dir + "/no-such-file");
  EXPECT_EQ(none.cpuset_v1 + none.memory_v1 + none.unified, "");
}

TEST(Cgroups, UnifiedWithoutControllersIsNotUsable) {
  auto dir = tmpdir();
  CgroupRoots r{"", "", dir};
  put(dir + "/cgroup.controllers", "cpu io pids\n");
  EXPECT_EQ(usable_version(r), CgroupVersion::None);
  put(dir + "/cgroup.controllers", "cpuset cpu io memory pids\n");
  EXPECT_EQ(usable_version(r), CgroupVersion::V2);
}

TEST(Cgroups, ParsesProfileTemplateAfterSubstitution) {
  auto a = parse_cgroup_ref("cpuset,memory:student3");
  EXPECT_TRUE(a.cpuset && a.memory);
  EXPECT_EQ(a.name, "student3");
  auto b = parse_cgroup_ref("memory:student1");
  EXPECT_FALSE(b.cpuset);
  EXPECT_TRUE(b.memory);
  auto c = parse_cgroup_ref("student0");  // lite profile: no controllers = both
  EXPECT_TRUE(c.cpuset && c.memory);
  EXPECT_THROW(parse_cgroup_ref("cpuset:"), CgroupError);
  EXPECT_THROW(parse_cgroup_ref("cpuset:../etc"), CgroupError);
  EXPECT_EQ(parse_cpu_list("0-2,5"), (std::vector<int>{0, 1, 2, 5}));
  EXPECT_TRUE(parse_cpu_list("x-1").empty());
}

TEST(Cgroups, V1SetupWritesCpusMemsAndLimitThenTeardownRemovesOnlyItsGroups) {
  FakeV1 f;
  // A group made by someone else (the original's script) must be kept.
  ::mkdir((f.roots.cpuset_v1 + "/student1").c_str(), 0755);
  put(f.roots.cpuset_v1 + "/student1/cpuset.cpus", "3");
  StudentGroups g(f.roots, f.marker);
  ASSERT_EQ(g.version(), CgroupVersion::V1);
  auto lines = g.setup(two_students());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("created"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("kept as it is"), std::string::npos) << lines[1];
  EXPECT_EQ(get(f.roots.cpuset_v1 + "/student0/cpuset.cpus"), "0-1");
  EXPECT_EQ(get(f.roots.cpuset_v1 + "/student0/cpuset.mems"), "0-1");  // all memory nodes
  EXPECT_EQ(get(f.roots.memory_v1 + "/student0/memory.limit_in_bytes"), std::to_string(512LL << 20));
  EXPECT_EQ(get(f.roots.cpuset_v1 + "/student1/cpuset.cpus"), "3");  // untouched

  auto st = g.status();
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].info.name, "student0");
  EXPECT_TRUE(st[0].made_by_milarun);
  EXPECT_EQ(st[0].info.cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(st[0].info.memory_limit_bytes.value_or(0), 512LL << 20);
  EXPECT_FALSE(st[1].made_by_milarun);

  // Running setup again changes nothing.
  auto again = g.setup(two_students());
  EXPECT_NE(again[0].find("made by milarun"), std::string::npos) << again[0];

  auto down = g.teardown();
  EXPECT_EQ(down.size(), 2u);
  EXPECT_FALSE(exists(f.roots.cpuset_v1 + "/student0"));
  EXPECT_FALSE(exists(f.roots.memory_v1 + "/student0"));
  EXPECT_TRUE(exists(f.roots.cpuset_v1 + "/student1"));
  EXPECT_FALSE(exists(f.marker));
  EXPECT_EQ(g.teardown().size(), 1u);  // "nothing to remove"
}

TEST(Cgroups, V1SetupUnderParentGivesParentTheRootCpusetFirst) {
  FakeV1 f;
  StudentGroups g(f.roots, f.marker);
  auto s = two_students();
  s.parent = "milabench-test";
  g.setup(s);
  EXPECT_EQ(get(f.roots.cpuset_v1 + "/milabench-test/cpuset.cpus"), "0-3");
  EXPECT_EQ(get(f.roots.cpuset_v1 + "/milabench-test/student1/cpuset.cpus"), "2-3");
  EXPECT_EQ(g.status("milabench-test").size(), 2u);
  g.teardown();
  EXPECT_FALSE(exists(f.roots.cpuset_v1 + "/milabench-test"));
  EXPECT_FALSE(exists(f.roots.memory_v1 + "/milabench-test"));
}

TEST(Cgroups, V2SetupEnablesControllersAndWritesUnifiedFiles) {
  auto dir = tmpdir();
  CgroupRoots r{"", "", dir};
  put(dir + "/cgroup.controllers", "cpuset cpu memory\n");
  put(dir + "/cpuset.mems.effective", "0");
  StudentGroups g(r, dir + "/marker.json");
  ASSERT_EQ(g.version(), CgroupVersion::V2);
  g.setup(two_students());
  EXPECT_EQ(get(dir + "/cgroup.subtree_control"), "+cpuset +memory");
  EXPECT_EQ(get(dir + "/student1/cpuset.cpus"), "2-3");
  EXPECT_EQ(get(dir + "/student1/cpuset.mems"), "0");
  EXPECT_EQ(get(dir + "/student1/memory.max"), std::to_string(512LL << 20));
  g.teardown();
  EXPECT_FALSE(exists(dir + "/student0"));
  EXPECT_EQ(get(dir + "/cgroup.subtree_control"), "-cpuset -memory");
}

TEST(Cgroups, SetupWithoutUsableHierarchyFailsNamingTheFix) {
  auto dir = tmpdir();
  StudentGroups g(CgroupRoots{"", "", dir}, dir + "/m.json");
  try {
    g.setup(two_students());
    FAIL() << "expected CgroupError";
  } catch (const CgroupError& e) {
    EXPECT_NE(std::string(e.what()).find("--no-cgexec"), std::string::npos) << e.what();
  }
}

TEST(Isolation, UsesExistingGroupAndTakesItsCpus) {
  FakeV1 f;
  StudentGroups(f.roots, f.marker).setup(two_students());
  put(f.roots.cpuset_v1 + "/student1/cgroup.procs", "");  // cgroupfs has these; a fake root needs them
  put(f.roots.memory_v1 + "/student1/cgroup.procs", "");
  ProcessSpec s;
  s.cgroup = "cpuset,memory:student1";
  s.cpus = {0};
  EXPECT_EQ(resolve_isolation(s, f.roots, CgroupVersion::V1), "");
  EXPECT_EQ(s.cpus, (std::vector<int>{2, 3}));
  EXPECT_FALSE(s.isolation.set_affinity);
  ASSERT_EQ(s.isolation.join_files.size(), 2u);
  EXPECT_EQ(s.isolation.join_files[1], f.roots.memory_v1 + "/student1/cgroup.procs");
  auto rec = nlohmann::json::parse(s.isolation.record);
  EXPECT_EQ(rec["kind"], "cgroup");
  EXPECT_EQ(rec["cpu_list"], "2-3");
  EXPECT_DOUBLE_EQ(rec["memory_limit_mb"].get<double>(), 512.0);
  EXPECT_EQ(rec["paths"]["cpuset"], f.roots.cpuset_v1 + "/student1");
  EXPECT_EQ(nlohmann::json::parse(s.isolation.fallback_record)["kind"], "affinity");
}

TEST(Isolation, MissingGroupFallsBackToAffinityWithOneWarning) {
  FakeV1 f;
  std::vector<std::vector<ProcessSpec>> waves(2, std::vector<ProcessSpec>(2));
  for (auto& w : waves)
    for (std::size_t i = 0; i < w.size(); ++i) {
      w[i].cgroup = "cpuset,memory:student" + std::to_string(i);
      w[i].cpus = {static_cast<int>(i)};
      w[i].name = "t";
      w[i].job_id = "0." + std::to_string(i);
    }
  std::string warning = resolve_all_isolation(waves, f.roots, CgroupVersion::V1);
  EXPECT_NE(warning.find("4 of 4"), std::string::npos) << warning;
  EXPECT_NE(warning.find("milarun cgroups setup"), std::string::npos) << warning;
  EXPECT_EQ(warning.find('\n'), std::string::npos);
  const auto& s = waves[0][1];
  EXPECT_TRUE(s.isolation.join_files.empty());
  EXPECT_TRUE(s.isolation.set_affinity);
  auto rec = nlohmann::json::parse(s.isolation.record);
  EXPECT_EQ(rec["kind"], "affinity");
  EXPECT_EQ(rec["cpus"], nlohmann::json::array({1}));
  EXPECT_TRUE(rec["memory_limit_mb"].is_null());
  EXPECT_TRUE(rec.contains("reason"));
}

TEST(Isolation, NoCgroupRequestedIsAffinityWithoutWarning) {
  ProcessSpec s;
  EXPECT_EQ(resolve_isolation(s, CgroupRoots{}, CgroupVersion::None), "");
  EXPECT_EQ(nlohmann::json::parse(s.isolation.record)["kind"], "none");
  s.cgroup = "student0";
  s.cpus = {0};
  EXPECT_NE(resolve_isolation(s, CgroupRoots{}, CgroupVersion::None), "");
  EXPECT_EQ(nlohmann::json::parse(s.isolation.record)["kind"], "affinity");
}

TEST(Isolation, ChildWritesItsPidToJoinFilesAndSeesTheRecord) {
  auto dir = tmpdir();
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", "echo \"$MILARUN_ISOLATION\"; echo $$"};
  s.name = "t.join";
  s.job_id = "0";
  s.timeout_s = 20;
  s.isolation.join_files = {dir + "/a.procs", dir + "/b.procs"};
  put(dir + "/a.procs", "");
  put(dir + "/b.procs", "");
  s.isolation.record = R"({"kind":"cgroup"})";
  s.isolation.fallback_record = R"({"kind":"affinity"})";
  auto r = run_wave({s}, dir + "/logs");
  ASSERT_TRUE(r[0].ok());
  std::ifstream log(r[0].log_path);
  std::string rec, pid;
  std::getline(log, rec);
  std::getline(log, pid);
  EXPECT_EQ(rec, R"({"kind":"cgroup"})");
  EXPECT_EQ(get(dir + "/a.procs"), pid);  // sh was exec'd in the same process
  EXPECT_EQ(get(dir + "/b.procs"), pid);
}

TEST(Isolation, FailedJoinFallsBackToAffinityRecordAndSaysSoInLog) {
  auto dir = tmpdir();
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", "echo \"$MILARUN_ISOLATION\""};
  s.name = "t.nojoin";
  s.job_id = "0";
  s.timeout_s = 20;
  s.cpus = {0};
  s.isolation.join_files = {dir + "/missing/cgroup.procs"};
  s.isolation.set_affinity = false;
  s.isolation.record = R"({"kind":"cgroup"})";
  s.isolation.fallback_record = R"({"kind":"affinity"})";
  auto r = run_wave({s}, dir + "/logs");
  ASSERT_TRUE(r[0].ok());
  std::string log = get(r[0].log_path);
  EXPECT_NE(log.find("could not join cgroup"), std::string::npos) << log;
  EXPECT_NE(log.find(R"({"kind":"affinity"})"), std::string::npos) << log;
}

TEST(Isolation, JobsWarnsOnceAndEveryProcessGetsItsRecord) {
  CgroupRoots sys = detect_cgroup_roots();
  CgroupVersion v = usable_version(sys);
  if (v != CgroupVersion::None && is_directory(group_dirs(sys, v, "student0").cpuset))
    GTEST_SKIP() << "this machine has student groups set up; the fallback path cannot be exercised";
  if (allowed_cpus().size() < 2) GTEST_SKIP() << "needs 2 CPUs for --devices 2";
  auto dir = tmpdir();
  std::string prof = dir + "/mini.json";
  put(prof, R"({"*": {"partition_scheme": {"type": "per-gpu", "cgroup": "cpuset,memory:student{CUDA_VISIBLE_DEVICES}"}},
               "a": {"experiment": "x"}, "b": {"experiment": "x"}})");
  // A fake milarun that keeps what the launcher handed it.
  std::string fake = dir + "/fake.sh";
  put(fake, "#!/bin/sh\necho \"$MILARUN_ISOLATION\" > \"" + dir + "/iso.$MILARUN_CPU_PARTITION.$$\"\n" +
                "while [ $# -gt 0 ]; do case $1 in -o) o=$2;; --experiment-name) n=$2;; --job-id) j=$2;; esac; shift; "
                "done\necho '{\"name\": \"'$n'\", \"success\": true}' > \"$o/$n.J$j.20260101-000000-000000.json\"\n");
  ::chmod(fake.c_str(), 0755);
  JobsOptions o;
  o.profile = prof;
  o.dataroot = dir;
  o.outdir = dir + "/out";
  o.devices = 2;
  o.self_exe = fake;
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 0) << err.str();
  std::string e = err.str();
  auto first = e.find("warning: cgroups not used for 4 of 4 processes");
  EXPECT_NE(first, std::string::npos) << e;
  EXPECT_EQ(e.find("warning: cgroups", first + 1), std::string::npos) << e;  // one warning
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string n = entry.path().filename().string();
    if (n.rfind("iso.", 0) != 0) continue;
    ++files;
    auto rec = nlohmann::json::parse(get(entry.path().string()));
    EXPECT_EQ(rec["kind"], "affinity");
    EXPECT_EQ(rec["cpus"].size(), allowed_cpus().size() / 2);
    EXPECT_EQ(rec["cgroup_requested"], "cpuset,memory:student" + n.substr(4, 1));
  }
  EXPECT_EQ(files, 4);
}
