// CPU sets per device: NUMA-local where known, contiguous splits otherwise,
// a core's hyperthreads in one set (sys/cpu_topology.hpp); a run whose
// cores' other threads, outside its CPUs, were busy with other processes is
// flagged (monitor.sibling_cpu; results' contention rule).
#include "launch/topology.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "launch/devices.hpp"
#include "launch/isolation.hpp"
#include "monitor/monitor.hpp"
#include "monitor_fakes.hpp"
#include "results/result_record.hpp"
#include "scratch_dir.hpp"
#include "sys/cpu_topology.hpp"
#include "sys/fake_clock.hpp"

using namespace milabench;

namespace {
std::vector<int> range(int a, int b) {
  std::vector<int> v;
  for (int i = a; i < b; ++i) v.push_back(i);
  return v;
}

// `cores` cores of two threads each, numbered as Linux does on Intel and AMD
// servers: core k's threads are CPUs k and k + cores.
ThreadSiblings two_threads_per_core(int cores) {
  ThreadSiblings s;
  for (int k = 0; k < cores; ++k) s[k] = s[k + cores] = {k, k + cores};
  return s;
}

void put(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

// A fake /sys/devices/system/cpu of `cores` two-thread cores.
std::string fake_cpu_root(const std::string& name, int cores) {
  const auto dir = test::scratch_dir(name);
  for (const auto& [cpu, threads] : two_threads_per_core(cores))
    put(dir + "/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list", cpu_list_string(threads) + "\n");
  return dir;
}

}  // namespace

TEST(Topology, DevicesGetCpusOfTheirNumaNode) {
  auto node0 = range(0, 8), node1 = range(8, 16);
  // GPU 0 and 3 sit on node 1, GPU 1 and 2 on node 0.
  auto p = partition_cpus_by_locality(range(0, 16), {node1, node0, node0, node1}, 4);
  EXPECT_EQ(p[0], range(8, 12));
  EXPECT_EQ(p[1], range(0, 4));
  EXPECT_EQ(p[2], range(4, 8));
  EXPECT_EQ(p[3], range(12, 16));
}

TEST(Topology, UnevenNodesGiveEqualSmallestShare) {
  // Three GPUs on node 0 (8 CPUs), one on node 1: everyone gets 2 CPUs.
  auto p = partition_cpus_by_locality(range(0, 16), {range(0, 8), range(0, 8), range(0, 8), range(8, 16)}, 4);
  for (const auto& s : p) EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(p[3], range(8, 10));
  EXPECT_EQ(p[2], range(4, 6));
}

TEST(Topology, UnknownOrDisallowedLocalityFallsBackToContiguousSplits) {
  auto contiguous = partition_cpus(range(0, 8), 2);
  EXPECT_EQ(partition_cpus_by_locality(range(0, 8), {range(0, 4), {}}, 2), contiguous);
  EXPECT_EQ(partition_cpus_by_locality(range(0, 8), {}, 2), contiguous);
  // Local CPUs outside the allowed set (e.g. a container's cpuset) do not count.
  EXPECT_EQ(partition_cpus_by_locality(range(0, 8), {range(8, 16), range(8, 16)}, 2), contiguous);
  EXPECT_THROW(partition_cpus_by_locality(range(0, 2), {}, 3), std::runtime_error);
}

TEST(Topology, HwlocDoesNotKnowABogusBusId) {
  auto local = pci_local_cpus({"0000:ff:1f.7", ""});
  ASSERT_EQ(local.size(), 2u);
  EXPECT_TRUE(local[0].empty());
  EXPECT_TRUE(local[1].empty());
  // Without GPUs the jobs' partitions are contiguous splits of our CPUs.
  auto cpus = allowed_cpus();
  EXPECT_EQ(device_cpu_partitions({}, 1), partition_cpus(cpus, 1));
}

// Without --devices: one device per GPU; without GPUs, two CPUs per
// partition, at least 2 partitions (scaling.2 exists on 2 CPUs), at most 8.
TEST(DefaultDeviceCount, OnePerGpuWhenThereAreGpus) {
  EXPECT_EQ(default_device_count(4, 2), 4);
  EXPECT_EQ(default_device_count(1, 64), 1);
}

TEST(DefaultDeviceCount, CpuPartitionsFollowTheCoreCount) {
  const std::pair<std::size_t, int> cases[] = {{1, 1}, {2, 2},  {3, 2},  {4, 2},  {5, 2}, {6, 3},
                                               {8, 4}, {12, 6}, {16, 8}, {64, 8}, {0, 1}};
  for (auto [cpus, n] : cases) EXPECT_EQ(default_device_count(0, cpus), n) << cpus << " CPUs";
}

TEST(DefaultDeviceCount, EveryPartitionOfTheRuleGetsCpus) {
  for (std::size_t cpus = 1; cpus <= 96; ++cpus) {
    std::vector<int> all(cpus);
    for (std::size_t i = 0; i < cpus; ++i) all[i] = int(i);
    const int n = default_device_count(0, cpus);
    auto parts = partition_cpus(all, n);
    ASSERT_EQ(parts.size(), std::size_t(n));
    for (const auto& p : parts) EXPECT_GE(p.size(), cpus >= 4 ? 2u : 1u) << cpus;
  }
}

TEST(CpuTopology, ThreadSiblingsAreReadFromSysfsAndABadFileIsNamed) {
  const auto root = fake_cpu_root("ht_sysfs", 4);  // cpuN/topology/thread_siblings_list: "0,4", ...
  std::string why;
  const auto s = read_thread_siblings(root, {0, 5}, why);
  ASSERT_TRUE(s.has_value()) << why;
  EXPECT_EQ(s->at(0), (std::vector<int>{0, 4}));
  EXPECT_EQ(s->at(5), (std::vector<int>{1, 5}));
  EXPECT_FALSE(read_thread_siblings(root, {0, 9}, why).has_value());
  EXPECT_NE(why.find("cpu9/topology/thread_siblings_list"), std::string::npos) << why;
  put(root + "/cpu1/topology/thread_siblings_list", "2-3\n");  // does not list cpu1 itself
  EXPECT_FALSE(read_thread_siblings(root, {1}, why).has_value());
  // This machine's own file lists each CPU this process may use.
  EXPECT_TRUE(read_thread_siblings("/sys/devices/system/cpu", {0}, why).has_value()) << why;
}

TEST(CpuTopology, CoresAreKeptTogetherAndTheirThreadsOutsideASetAreFound) {
  const auto ht = two_threads_per_core(4);  // cores {0,4} {1,5} {2,6} {3,7}
  EXPECT_EQ(order_by_core(range(0, 8), ht), (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(order_by_core({5, 0, 1}, ht), (std::vector<int>{1, 5, 0}));  // cores in order of first appearance
  EXPECT_EQ(order_by_core({3, 1, 2}, {}), (std::vector<int>{3, 1, 2}));  // no topology: unchanged
  EXPECT_EQ(siblings_outside({0, 1, 4}, ht), (std::vector<int>{5}));
  EXPECT_TRUE(siblings_outside({0, 4}, ht).empty());
  EXPECT_TRUE(siblings_outside({0, 1}, {}).empty());
}

// Before, contiguous splits of 0..15 on 8 two-thread cores gave device 0
// CPUs 0-7 and device 1 CPUs 8-15: every core shared by both devices' runs.
TEST(CpuTopology, EachDeviceGetsWholeCores) {
  const auto ht = two_threads_per_core(8);
  const auto p = partition_cpus_by_core(range(0, 16), 2, ht);
  EXPECT_EQ(p[0], (std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(p[1], (std::vector<int>{4, 5, 6, 7, 12, 13, 14, 15}));
  for (const auto& set : p) EXPECT_TRUE(siblings_outside(set, ht).empty()) << cpu_list_string(set);
  // Sizes that do not divide into cores: equal counts still, at most n - 1 cores split.
  const auto odd = partition_cpus_by_core(range(0, 6), 2, two_threads_per_core(3));
  EXPECT_EQ(odd[0], (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(odd[1], (std::vector<int>{2, 4, 5}));
  EXPECT_EQ(partition_cpus_by_core(range(0, 8), 2, {}), (std::vector<std::vector<int>>{range(0, 4), range(4, 8)}));
}

// A DGX-like node: NUMA node 0 holds cores 0-3 (CPUs 0-3 and 8-11), node 1
// cores 4-7; four GPUs, two per node. Before, GPU 0 got CPUs 0-3 and GPU 1
// CPUs 8-11, the other threads of the same four cores.
TEST(CpuTopology, NumaLocalSetsKeepCoresWholeToo) {
  const auto ht = two_threads_per_core(8);
  std::vector<int> node0 = {0, 1, 2, 3, 8, 9, 10, 11}, node1 = {4, 5, 6, 7, 12, 13, 14, 15};
  const auto p = partition_cpus_by_locality(range(0, 16), {node0, node0, node1, node1}, 4, ht);
  EXPECT_EQ(p[0], (std::vector<int>{0, 1, 8, 9}));
  EXPECT_EQ(p[1], (std::vector<int>{2, 3, 10, 11}));
  EXPECT_EQ(p[2], (std::vector<int>{4, 5, 12, 13}));
  EXPECT_EQ(p[3], (std::vector<int>{6, 7, 14, 15}));
  for (const auto& set : p) EXPECT_TRUE(siblings_outside(set, ht).empty()) << cpu_list_string(set);
}

// The run has CPUs 0 and 1 of four two-thread cores; CPUs 4 and 5 are the
// other threads of its cores. Another process keeps CPU 4 busy for one
// second: the siblings' share of that interval is 0.5 (one of two busy).
TEST(CpuTopology, MonitorRecordsHowBusyTheOtherThreadsOfTheRunsCoresWere) {
  const auto root = fake_cpu_root("ht_monitor", 4);
  const auto dir = test::scratch_dir("ht_monitor_proc");
  put(dir + "/proc_stat", test::proc_stat_text({0, 0, 0, 0, 0, 0, 0, 0}));
  put(dir + "/stat", "42 (run) S 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0\n");
  put(dir + "/status", "VmHWM:\t1024 kB\nVmRSS:\t1024 kB\n");
  FakeClock clock;
  MonitorOptions o = test::fake_monitor_options(clock);
  o.proc_dir = dir;
  o.proc_stat = dir + "/proc_stat";
  o.cpu_root = root;
  o.cpus = {0, 1};
  Monitor m(o);
  const double t0 = clock.now();
  m.start();
  put(dir + "/proc_stat", test::proc_stat_text({0, 0, 0, 0, 1, 0, 1, 1}));  // CPUs 6, 7: not its cores
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 2));
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(m, 3));
  const auto j = m.stop(std::make_pair(t0, t0 + 2.0))["monitor"];
  const auto s = j["sibling_cpu"];
  ASSERT_TRUE(s.is_object()) << j.dump();
  EXPECT_EQ(s["cpus"], "4-5");
  EXPECT_NEAR(s["share"]["max"].get<double>(), 0.5, 1e-9);
  EXPECT_NEAR(s["window_share"].get<double>(), 0.25, 1e-9);
  EXPECT_NEAR(j["foreign_cpu"]["window_share"].get<double>(), 0.0, 1e-9);  // its own CPUs were free

  o.cpus = {0, 4};  // a whole core: no thread outside, nothing lost
  Monitor whole(o);
  whole.start();
  clock.advance(1.0);
  ASSERT_TRUE(test::wait_for_samples(whole, 2));
  const auto w = whole.stop(std::make_pair(t0, t0 + 10.0))["monitor"]["sibling_cpu"];
  EXPECT_EQ(w["cpus"], "");
  EXPECT_NEAR(w["window_share"].get<double>(), 0.0, 1e-9);

  o.cpu_root = root + "/missing";
  test::expect_unread(o, "sibling_cpu", "sibling cpu: ");
}

TEST(CpuTopology, ARunWhoseCoresOtherThreadsWereBusyIsContended) {
  auto record = [](double share) {
    nlohmann::json doc = {{"name", "t"}, {"success", true}, {"job_id", "0.0"}};
    doc["monitor"] = {{"sibling_cpu", {{"cpus", "4-5"}, {"window_share", share}}}};
    return parse_result_record(doc).value();
  };
  EXPECT_TRUE(record(0.45).contended());
  EXPECT_EQ(contention_text(record(0.45)),
            "other processes kept its cores' other hyperthreads busy 45% of the time during its summary window");
  EXPECT_EQ(contention_readings(record(0.45))["sibling_cpu_share"], 0.45);
  EXPECT_FALSE(record(0.05).contended());
  EXPECT_FALSE(record(1.5).sibling_cpu_share.has_value());  // not a share
}

// The original's cgroup_setup.sh on 8 two-thread cores with 2 GPUs gave
// student0 CPUs 0-7 and student1 CPUs 8-15: the same 8 cores.
TEST(CpuTopology, SetsThatShareCoresAreFoundAndJobsSaysWhich) {
  const auto ht = two_threads_per_core(8);
  const auto split = shared_cores({range(0, 8), range(8, 16)}, ht);
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(split[0].first, 0u);
  EXPECT_EQ(split[0].second, 1u);
  EXPECT_EQ(split[0].cores, 8);
  EXPECT_EQ(split[0].cpu_in_first, 0);
  EXPECT_EQ(split[0].cpu_in_second, 8);
  EXPECT_TRUE(shared_cores(partition_cpus_by_core(range(0, 16), 4, ht), ht).empty());
  EXPECT_TRUE(shared_cores({range(0, 8), range(0, 8)}, {}).empty());  // the same CPUs, not cores
  // Two runs of one wave on such sets: one line naming both; runs of different waves never meet.
  auto spec = [](const char* job, std::vector<int> cpus) {
    ProcessSpec s;
    s.name = "standard.cart";
    s.job_id = job;
    s.cpus = std::move(cpus);
    return s;
  };
  std::vector<std::vector<ProcessSpec>> waves = {{spec("0.0", range(0, 8))}, {spec("1.0", range(8, 16))}};
  EXPECT_EQ(shared_core_warning(waves, ht), "");
  waves.push_back({spec("2.0", {0, 1, 8}), spec("2.1", {9, 2})});
  const std::string w = shared_core_warning(waves, ht);
  EXPECT_NE(w.find("standard.cart J2.0 (CPUs 0-1,8) and standard.cart J2.1 (CPUs 9,2) hold threads of the same 1 "
                   "core(s) (CPUs 1 and 9 are one core's)"),
            std::string::npos)
      << w;
}
