#include "measure/rate_meter.hpp"

#include <gtest/gtest.h>

using milabench::MeterOptions;
using milabench::RateMeter;

namespace {
struct FakeClock {
  double t = 0;
  int syncs = 0;
};

RateMeter make(FakeClock& c, int64_t max_count) {
  MeterOptions o;
  o.max_count = max_count;
  return RateMeter(
      o, [&c] { return c.t; }, [&c] { ++c.syncs; });
}
}  // namespace

TEST(RateMeter, RecordsOneRatePerHalfSecondSlice) {
  FakeClock c;
  auto m = make(c, 0);
  m.start();
  for (int i = 0; i < 8; ++i) {  // 8 steps of 0.125 s, 32 examples each
    c.t += 0.125;
    m.step(32);
  }
  ASSERT_EQ(m.rates().size(), 2u);
  EXPECT_NEAR(m.rates()[0], 256.0, 1e-9);
  EXPECT_NEAR(m.rates()[1], 256.0, 1e-9);
}

TEST(RateMeter, SyncsOnlyWhenASliceCloses) {
  FakeClock c;
  auto m = make(c, 0);
  m.start();
  int at_start = c.syncs;
  for (int i = 0; i < 64; ++i) {
    c.t += 1.0 / 64;
    m.step(1);
  }
  EXPECT_EQ(c.syncs - at_start, 2);  // 1.0 s of steps = two slices
}

TEST(RateMeter, LongStepFillsEverySliceItSpans) {
  FakeClock c;
  auto m = make(c, 0);
  m.start();
  c.t += 1.6;
  EXPECT_TRUE(m.step(160));
  ASSERT_EQ(m.rates().size(), 3u);
  for (double r : m.rates()) EXPECT_NEAR(r, 100.0, 1e-9);
}

TEST(RateMeter, DoneAtMaxCount) {
  FakeClock c;
  auto m = make(c, 100);
  m.start();
  m.step(64);
  EXPECT_FALSE(m.done());
  m.step(64);
  EXPECT_TRUE(m.done());
  EXPECT_EQ(m.count(), 128);
}

TEST(RateMeter, FinishAppendsThePartialSliceAndTimesOnlyBlocks) {
  FakeClock c;
  auto m = make(c, 0);
  m.start();
  for (int i = 0; i < 10; ++i) {
    c.t += 0.125;
    m.step(1);
  }
  c.t += 0.0625;  // after the last block: neither timed nor in wall_time
  m.finish();
  auto j = m.to_json();
  EXPECT_NEAR(j["wall_time"].get<double>(), 1.25, 1e-12);
  EXPECT_NEAR(j["time"].get<double>(), 1.25, 1e-12);
  ASSERT_EQ(j["rates"].size(), 3u);  // two full slices and the 0.25 s left (RateLogger.finalize)
  EXPECT_NEAR(j["rates"][2].get<double>(), 8.0, 1e-9);
  EXPECT_EQ(j["count"].get<int64_t>(), 10);
}

TEST(RateMeter, SetUpBeforeTheFirstBlockIsNotTimed) {
  FakeClock c;
  auto m = make(c, 0);
  c.t = 30;  // dataset loading, model construction
  m.begin();
  c.t += 0.5;
  m.step(50);
  m.finish();
  EXPECT_NEAR(m.first_start(), 30.0, 1e-12);
  EXPECT_NEAR(m.wall_time(), 0.5, 1e-12);
  ASSERT_EQ(m.rates().size(), 1u);
  EXPECT_NEAR(m.rates()[0], 100.0, 1e-9);
}

TEST(RateMeter, TimeBetweenStepAndBeginIsOverheadNotRate) {
  FakeClock c;
  auto m = make(c, 0);
  for (int i = 0; i < 4; ++i) {
    m.begin();
    c.t += 0.25;
    m.step(25);
    c.t += 1.0;  // e.g. an evaluation outside the original's timed block
  }
  m.finish();
  auto j = m.to_json();
  EXPECT_NEAR(j["time"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(j["wall_time"].get<double>(), 4.0, 1e-12);
  EXPECT_NEAR(j["overhead"].get<double>(), 3.0, 1e-12);
  for (double r : m.rates()) EXPECT_NEAR(r, 100.0, 1e-9);
}

TEST(RateMeter, ABlockWithoutBeginStartsWhereTheLastStepReturned) {
  FakeClock c;
  auto m = make(c, 0);
  m.begin();
  c.t += 0.25;
  m.step(10);
  c.t += 0.25;  // no begin(): this is timed
  m.step(10);
  EXPECT_NEAR(m.time(), 0.5, 1e-12);
  c.t += 0.25;  // the harness's own work after that step (loss read, progress line)
  m.exclude_since_step();
  c.t += 0.25;  // no begin(): timed from exclude_since_step()
  m.step(10);
  EXPECT_NEAR(m.time(), 0.75, 1e-12);
  EXPECT_NEAR(m.wall_time(), 1.0, 1e-12);
}

TEST(RateMeter, SyncsOnlyForABlockThatWouldCloseASlice) {
  FakeClock c;
  auto m = make(c, 0);
  m.begin();
  c.t += 0.4;
  m.step(1);
  EXPECT_EQ(c.syncs, 0);
  c.t += 0.1;
  m.step(1);
  EXPECT_EQ(c.syncs, 1);
}

TEST(RateMeter, SliceSyncOffNeverSyncs) {
  FakeClock c;
  auto m = make(c, 0);
  m.set_sync_enabled(false);
  for (int i = 0; i < 10; ++i) {
    c.t += 0.3;
    m.step(1);
  }
  m.finish();
  EXPECT_EQ(c.syncs, 0);
  EXPECT_FALSE(m.rates().empty());
}

TEST(RateMeter, FinishSyncIsTimedLikeTheOriginalsElapseSync) {
  FakeClock c;
  MeterOptions o;
  RateMeter m(
      o, [&c] { return c.t; }, [&c] { c.t += 0.1; });
  m.begin();
  c.t += 0.2;
  m.step(20);
  m.finish();  // 0.1 s of sync is timed with 0 examples: 20 over 0.3 s
  ASSERT_EQ(m.rates().size(), 1u);
  EXPECT_NEAR(m.rates()[0], 20 / 0.3, 1e-9);
  EXPECT_NEAR(m.time(), 0.3, 1e-12);
  EXPECT_NEAR(m.wall_time(), 0.2, 1e-12);  // the end is the last block's, as the original's
}

TEST(RateMeter, ABlockBegunButNeverSteppedIsDropped) {
  FakeClock c;
  auto m = make(c, 0);
  m.begin();
  c.t += 0.5;
  m.step(5);
  m.begin();  // e.g. the data ran out inside the block
  c.t += 0.3;
  m.finish();
  EXPECT_NEAR(m.time(), 0.5, 1e-12);
  EXPECT_EQ(m.count(), 5);
}

TEST(RateMeter, MinDurationKeepsGoingPastMaxCount) {
  FakeClock c;
  MeterOptions o;
  o.max_count = 10;
  o.min_duration = 2.0;
  RateMeter m(o, [&c] { return c.t; }, {});
  int steps = 0;
  do {
    m.begin();
    c.t += 0.25;
    ++steps;
  } while (m.step(10), !m.done());
  EXPECT_EQ(steps, 8);  // 10 examples were reached at the first step; 2 s at the 8th
  EXPECT_EQ(m.count(), 80);
  EXPECT_EQ(m.to_json()["min_duration"].get<double>(), 2.0);
}

TEST(RateMeter, MinDurationCountsTimedBlocksOnly) {
  FakeClock c;
  MeterOptions o;
  o.max_count = 1;
  o.min_duration = 1.0;
  RateMeter m(o, [&c] { return c.t; }, {});
  for (int i = 0; i < 3; ++i) {
    m.begin();
    c.t += 0.25;
    m.step(1);
    c.t += 10;  // untimed
  }
  EXPECT_FALSE(m.done());
  m.begin();
  c.t += 0.25;
  m.step(1);
  EXPECT_TRUE(m.done());
}

TEST(RateMeter, AFirstStepWithoutBeginIsTimedFromArm) {
  FakeClock c;
  auto m = make(c, 0);
  c.t = 10;
  m.arm();
  c.t = 12;  // set-up and the first iteration of a workload that marks no blocks
  m.step(20);
  EXPECT_NEAR(m.time(), 2.0, 1e-12);
  EXPECT_NEAR(m.first_start(), 10.0, 1e-12);
}

TEST(RateMeter, ArmIsIgnoredOnceTheWorkloadBegins) {
  FakeClock c;
  auto m = make(c, 0);
  m.arm();
  c.t = 30;  // set-up: outside the slices
  m.begin();
  c.t = 30.5;
  m.step(50);
  EXPECT_NEAR(m.time(), 0.5, 1e-12);
  EXPECT_NEAR(m.first_start(), 30.0, 1e-12);
}
