// CPU sets per device: NUMA-local where known, contiguous splits otherwise.
#include "launch/topology.hpp"

#include <gtest/gtest.h>

#include "launch/devices.hpp"

using namespace milabench;

namespace {
std::vector<int> range(int a, int b) {
  std::vector<int> v;
  for (int i = a; i < b; ++i) v.push_back(i);
  return v;
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
