// The one owner of "how many CPUs may this process use" (src/sys/cpus).
#include "sys/cpus.hpp"

#include <gtest/gtest.h>
#include <sched.h>

namespace milabench {
namespace {

TEST(UsableCpus, APinnedThreadSeesOnlyItsPartition) {
  const std::vector<int> all = allowed_cpus();
  ASSERT_FALSE(all.empty());
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(all.back(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const std::vector<int> pinned = allowed_cpus();
  const int usable = usable_cpu_count();
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
  EXPECT_EQ(pinned, std::vector<int>{all.back()});
  EXPECT_EQ(usable, 1);
  EXPECT_GE(usable_cpu_count(), 1);
  EXPECT_LE(usable_cpu_count(), static_cast<int>(all.size()));
}

TEST(UsableCpus, ACgroupV2QuotaRoundsUpAndMaxIsUnlimited) {
  EXPECT_EQ(cpu_max_quota("150000 100000\n"), 2);
  EXPECT_EQ(cpu_max_quota("100000 100000"), 1);
  EXPECT_EQ(cpu_max_quota("10000 100000"), 1);
  EXPECT_EQ(cpu_max_quota("max 100000\n"), std::nullopt);
  EXPECT_EQ(cpu_max_quota(""), std::nullopt);
  EXPECT_EQ(cpu_max_quota("garbage"), std::nullopt);
}

TEST(UsableCpus, ACgroupV1QuotaOfMinusOneIsUnlimited) {
  EXPECT_EQ(cfs_quota("400000\n", "100000\n"), 4);
  EXPECT_EQ(cfs_quota("-1\n", "100000\n"), std::nullopt);
  EXPECT_EQ(cfs_quota("", ""), std::nullopt);
  EXPECT_EQ(cfs_quota("250000", "0"), std::nullopt);
}

}  // namespace
}  // namespace milabench
