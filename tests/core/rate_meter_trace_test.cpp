// The rate meter against the original's RateLogger arithmetic: a trace of
// timed blocks (tests/meter/ratelogger_trace.json, made and checked by
// tests/meter/ratelogger_reference.py, a Python rendering of RateLogger) is
// replayed through RateMeter on a fake clock; rates, times and counts must be
// the same floating-point numbers.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "measure/rate_meter.hpp"

using milabench::MeterOptions;
using milabench::RateMeter;

namespace {

nlohmann::json load_trace() {
  std::ifstream in(std::string(MILABENCH_SOURCE_DIR) + "/tests/meter/ratelogger_trace.json");
  return nlohmann::json::parse(in);
}

struct Replay {
  nlohmann::json report;
  std::vector<double> rates;
};

Replay replay(const nlohmann::json& blocks, const nlohmann::json& c) {
  double t = c["t0"].get<double>();
  const double cost = c["sync_cost"].get<double>();
  MeterOptions o;
  o.sample_duration = c["sample_duration"].get<double>();
  RateMeter m(
      o, [&t] { return t; }, [&t, cost] { t += cost; });
  m.set_sync_enabled(c["sync"].get<bool>());
  for (const auto& b : blocks) {
    t += b["gap"].get<double>();
    if (!b["implicit"].get<bool>()) m.begin();
    t += b["duration"].get<double>();
    m.step(b["count"].get<int64_t>());
  }
  m.finish();
  return {m.to_json(), m.rates()};
}

}  // namespace

TEST(RateMeterTrace, GivesTheRatesOfTheOriginalsRateLogger) {
  auto trace = load_trace();
  ASSERT_EQ(trace["cases"].size(), 2u);
  for (const auto& c : trace["cases"]) {
    SCOPED_TRACE(c["sync"].get<bool>() ? "sync" : "no sync");
    Replay r = replay(trace["blocks"], c);
    const auto& want = c["expected"];
    ASSERT_EQ(r.rates.size(), want["rates"].size());
    for (size_t i = 0; i < r.rates.size(); ++i) EXPECT_DOUBLE_EQ(r.rates[i], want["rates"][i].get<double>()) << i;
    EXPECT_EQ(r.report["count"].get<int64_t>(), want["count"].get<int64_t>());
    EXPECT_DOUBLE_EQ(r.report["time"].get<double>(), want["time"].get<double>());
    EXPECT_DOUBLE_EQ(r.report["wall_time"].get<double>(), want["wall_time"].get<double>());
    EXPECT_DOUBLE_EQ(r.report["overhead"].get<double>(), want["overhead"].get<double>());
  }
}

TEST(RateMeterTrace, SyncingChangesTheRatesAsTheOriginals) {
  // The two cases differ only in sync: the replay must see that difference too.
  auto trace = load_trace();
  Replay with = replay(trace["blocks"], trace["cases"][0]);
  Replay without = replay(trace["blocks"], trace["cases"][1]);
  EXPECT_NE(with.rates, without.rates);
  EXPECT_GT(with.report["time"].get<double>(), without.report["time"].get<double>());
}
