// When data-parallel ranks read their stop vote (measure/stop_schedule.hpp).
#include "measure/stop_schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace milabench {
namespace {

TEST(StopSchedule, FirstCheckIsTheStepAfterMaxCount) {
  EXPECT_EQ(StopSchedule(50000, 64, false).next_check(), 782 + 1);  // ceil(50000 / 64) steps, then the check
  EXPECT_EQ(StopSchedule(128, 64, false).next_check(), 3);
  EXPECT_TRUE(StopSchedule(128, 64, false).is_check(3));
  EXPECT_FALSE(StopSchedule(128, 64, false).is_check(2));
}

TEST(StopSchedule, RunsThatCanEndEarlyCheckFromTheSecondStep) {
  EXPECT_EQ(StopSchedule(50000, 64, /*until_stable=*/true).next_check(), 2);
  EXPECT_EQ(StopSchedule(0, 64, false).next_check(), 2);  // no count limit: time decides
}

TEST(StopSchedule, OnlyRankZeroVotesAndAStopIsNegative) {
  EXPECT_EQ(StopSchedule::vote(false, true, 7), 0.0f);
  EXPECT_EQ(StopSchedule::vote(true, true, 7), -1.0f);
  EXPECT_EQ(StopSchedule::vote(true, false, 7.9), 7.0f);
  EXPECT_EQ(StopSchedule::vote(true, false, 0.2), 1.0f);  // at least one step apart
  EXPECT_EQ(StopSchedule::vote(true, false, std::numeric_limits<double>::quiet_NaN()), 1.0f);
  EXPECT_EQ(StopSchedule::vote(true, false, 1e12), 1e6f);
}

TEST(StopSchedule, ASummedVoteSchedulesTheNextCheckOrLeaves) {
  StopSchedule s(128, 64, false);
  EXPECT_FALSE(s.leave(5.0f, 3));
  EXPECT_EQ(s.next_check(), 8);
  EXPECT_FALSE(s.leave(0.0f, 8));  // nobody voted a distance: the very next step
  EXPECT_EQ(s.next_check(), 9);
  EXPECT_TRUE(s.leave(-1.0f, 9));
}

}  // namespace
}  // namespace milabench
