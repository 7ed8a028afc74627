// Cost of one RateMeter::step with the real steady clock (the hot-loop cost a
// workload pays per iteration). Target: under 1 µs.
#include <benchmark/benchmark.h>

#include <chrono>

#include "measure/rate_meter.hpp"

static double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

static void BM_RateMeterStep(benchmark::State& state) {
  milabench::MeterOptions o;
  milabench::RateMeter m(o, now_s, [] {});
  m.start();
  for (auto _ : state) benchmark::DoNotOptimize(m.step(64));
}
BENCHMARK(BM_RateMeterStep);
BENCHMARK_MAIN();
