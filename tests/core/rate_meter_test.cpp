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
  return RateMeter(o, [&c] { return c.t; }, [&c] { ++c.syncs; });
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

TEST(RateMeter, FinishReportsWallTimeAndMeasuredTime) {
  FakeClock c;
  auto m = make(c, 0);
  m.start();
  for (int i = 0; i < 10; ++i) {
    c.t += 0.125;
    m.step(1);
  }
  c.t += 0.0625;
  m.finish();
  auto j = m.to_json();
  EXPECT_NEAR(j["wall_time"].get<double>(), 1.3125, 1e-9);
  EXPECT_NEAR(j["time"].get<double>(), 1.0, 1e-9);  // partial last slice not recorded
  EXPECT_EQ(j["rates"].size(), 2u);
  EXPECT_EQ(j["count"].get<int64_t>(), 10);
}
