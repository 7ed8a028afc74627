// A run whose process was stopped (SIGSTOP, Ctrl-Z, a debugger, a frozen
// cgroup): the monitor records when, the rate meter's slices place the stop
// in time, the window rule waits it out of the summary window, and a run
// whose window still holds it is flagged.
#include "monitor/stopped_time.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "measure/rate_meter.hpp"
#include "measure/summary_window.hpp"
#include "monitor/monitor.hpp"
#include "monitor_fakes.hpp"
#include "results/result_record.hpp"
#include "sys/fake_clock.hpp"

using namespace milabench;

namespace {

// Seconds of [t0, t1] inside [from, to].
double overlap(double t0, double t1, double from, double to) {
  return std::max(0.0, std::min(t1, to) - std::max(t0, from));
}

}  // namespace

TEST(StoppedTime, AWakeUpLaterThanItsDueTimeIsAStopAndAPendingOneCountsAlready) {
  StoppedTime s;
  s.waiting(10);
  s.woke(10.1);  // the scheduler's delay, not a stop
  s.waiting(11);
  s.woke(14);  // [11, 14]
  EXPECT_DOUBLE_EQ(s.seconds_between(12, 20, 20), 2);
  s.waiting(15);
  EXPECT_DOUBLE_EQ(s.seconds_between(0, 100, 15.2), 3) << "0.2 s late is not a stop";
  EXPECT_DOUBLE_EQ(s.seconds_between(0, 100, 17), 5) << "the thread has not run since 15: stopped until now";
  s.woke(17);
  const auto j = s.to_json(std::make_pair(12.0, 22.0));
  EXPECT_EQ(j["episodes"], 2);
  EXPECT_DOUBLE_EQ(j["total_s"].get<double>(), 5);
  EXPECT_DOUBLE_EQ(j["longest_s"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(j["window_s"].get<double>(), 4);
  EXPECT_DOUBLE_EQ(j["window_share"].get<double>(), 0.4);
  EXPECT_TRUE(s.to_json(std::nullopt)["window_share"].is_null());
}

// The fake clock jumps 4 s while the monitor's thread waits for a sample due
// at 2: it wakes at 5, so [2, 5] is a stop, and the samples it missed are
// skipped rather than taken in a burst.
TEST(Monitor, TimeItsThreadCouldNotRunIsRecordedAsStopped) {
  FakeClock clock;
  MonitorOptions o = test::fake_monitor_options(clock);
  Monitor m(o);
  m.start();
  clock.advance(1);
  ASSERT_TRUE(test::wait_for_samples(m, 2));
  EXPECT_DOUBLE_EQ(m.stopped_between(0, 10), 0);
  clock.advance(4);
  ASSERT_TRUE(test::wait_for_samples(m, 3));
  EXPECT_DOUBLE_EQ(m.stopped_between(0, 10), 3);
  EXPECT_DOUBLE_EQ(m.stopped_between(4, 10), 1);
  clock.advance(0.5);
  clock.settle();
  EXPECT_EQ(m.samples(), 3) << "a burst of the samples missed at 3 and 4";
  clock.advance(0.5);
  ASSERT_TRUE(test::wait_for_samples(m, 4));  // the next one falls at 6, on the grid
  const auto j = m.stop(std::make_pair(1.0, 6.0))["monitor"]["stopped"];
  EXPECT_EQ(j["episodes"], 1);
  EXPECT_DOUBLE_EQ(j["total_s"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(j["window_share"].get<double>(), 0.6);
}

// A slice a long block closes ends where its time ran out inside the block,
// so a stop inside the block lies inside the span of the slices it filled.
TEST(RateMeter, TheSlicesALongBlockFillsShareItsTimeInOrder) {
  double t = 100;
  MeterOptions o;
  o.window_rule = false;
  RateMeter m(o, [&t] { return t; }, {});
  m.start();
  t += 1.6;
  m.step(160);
  m.finish();
  ASSERT_EQ(m.rates().size(), 4u);  // three slices and the partial one
  const auto span = m.window_span();
  ASSERT_TRUE(span.has_value());
  EXPECT_DOUBLE_EQ(span->first, 100);
  EXPECT_DOUBLE_EQ(span->second, 101) << "the second slice ends 1 s into the block, not at its end";
}

// A run stopped for 5 s by the step that meets its count: that block fills
// ten slices at 1/41 of the rate, and the summary window ends on them. Its
// rate falls, so neither the warm-up nor the rising check holds the run; the
// stop does, until the window has moved past it.
TEST(WindowRule, ARunStoppedInsideItsWindowGoesOnUntilTheStopIsOutOfIt) {
  const double from = 12, to = 17;
  const auto run = [&](bool window_rule, bool probe) {
    double t = 0;
    MeterOptions o;
    o.max_count = 97 * 125;  // met by the stopped step
    o.window_rule = window_rule;
    auto m = std::make_unique<RateMeter>(
        o, [&t] { return t; }, RateMeter::Sync{});
    if (probe) m->set_stopped_probe([&](double t0, double t1) { return overlap(t0, t1, from, to); });
    m->start();
    for (int i = 0; !m->done(); ++i) {
      t += i == 96 ? 5.125 : 0.125;  // 1000 examples/s, and one step across the stop
      m->step(125);
    }
    m->finish();
    return m;
  };
  const auto original = run(false, true), unaware = run(true, false), ruled = run(true, true);
  EXPECT_EQ(original->count(), 97 * 125);
  EXPECT_LT(summary_window_mean(original->rates()), 700) << "the stop's slices in the window";
  EXPECT_EQ(unaware->count(), 97 * 125) << "without the monitor, the window rule cannot tell";
  EXPECT_GT(ruled->extended_time(), 9);
  EXPECT_LT(ruled->extended_time(), 12);
  const auto span = ruled->window_span();
  ASSERT_TRUE(span.has_value());
  EXPECT_GE(span->first, to);
  EXPECT_NEAR(summary_window_mean(ruled->rates()), 1000, 10);
}

// The stop fills 50 slices with one rate: a window of them looks settled.
TEST(UntilStable, AWindowFilledByAStopIsNotSettled) {
  const double from = 1, to = 26;
  const auto run = [&](bool probe) {
    double t = 0;
    MeterOptions o;
    o.until_stable = true;
    o.window_rule = false;
    auto m = std::make_unique<RateMeter>(
        o, [&t] { return t; }, RateMeter::Sync{});
    if (probe) m->set_stopped_probe([&](double t0, double t1) { return overlap(t0, t1, from, to); });
    m->start();
    for (int i = 0; i < 8; ++i) {
      t += 0.125;
      m->step(125);
    }
    t += 25.125;
    m->step(125);
    return m;
  };
  EXPECT_TRUE(run(false)->stopped_stable());
  EXPECT_FALSE(run(true)->stopped_stable());
}

TEST(ResultRecord, ARunStoppedInItsWindowIsFlagged) {
  nlohmann::json doc = {{"name", "s.t"},
                        {"monitor", {{"stopped", {{"episodes", 1}, {"total_s", 3.0}, {"window_share", 0.3}}}}}};
  const auto r = parse_result_record(doc);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->contended());
  EXPECT_NE(contention_text(*r).find("its process was stopped, not running at all, 30% of the time"), std::string::npos)
      << contention_text(*r);
  EXPECT_DOUBLE_EQ(contention_readings(*r)["stopped_share"].get<double>(), 0.3);
  doc["monitor"]["stopped"]["window_share"] = 0.05;
  EXPECT_FALSE(parse_result_record(doc)->contended());
}
