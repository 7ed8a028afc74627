// Environment steps per second of the C++ grid world (BabyAI-UnlockPickup-v0)
// and the Pong-like game, raw and behind the Atari wrappers, sequential and
// on threads. items_per_second = environment steps (agent steps for wrapped
// Pong: 4 game frames each). No torch.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "envs/parallel.hpp"
#include "envs/pong.hpp"
#include "envs/unlock_pickup.hpp"

using namespace milabench;

static void BM_UnlockPickupStep(benchmark::State& state) {
  UnlockPickup env(1);
  env.reset();
  std::mt19937 rng(2);
  for (auto _ : state) {
    auto r = env.step(static_cast<int>(rng() % minigrid::kNumActions));
    if (r.done) env.reset();
    benchmark::DoNotOptimize(env.obs().data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UnlockPickupStep);

// 64 grid worlds (the minigrid default --procs) stepped by Arg(0) threads.
static void BM_UnlockPickupVec64(benchmark::State& state) {
  std::vector<UnlockPickup> envs;
  for (int i = 0; i < 64; ++i) envs.emplace_back(i), envs.back().reset();
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    parallel_for(64, threads, [&](int i) {
      if (envs[i].step(static_cast<int>((i + state.iterations()) % 7)).done) envs[i].reset();
    });
  }
  state.SetItemsProcessed(state.iterations() * 64);
}
BENCHMARK(BM_UnlockPickupVec64)->Arg(1)->Arg(2)->UseRealTime();

static void BM_PongFrame(benchmark::State& state) {
  Pong game(1);
  game.reset();
  int a = 0;
  for (auto _ : state) {
    game.step(a++ % pong::kNumActions);
    if (game.done()) game.reset();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PongFrame);

static void BM_PongFrameRender(benchmark::State& state) {
  Pong game(1);
  game.reset();
  std::vector<uint8_t> rgb(pong::kFrameBytes);
  int a = 0;
  for (auto _ : state) {
    game.step(a++ % pong::kNumActions);
    if (game.done()) game.reset();
    game.render(rgb.data());
    benchmark::DoNotOptimize(rgb.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PongFrameRender);

static void BM_WrappedPongStep(benchmark::State& state) {
  WrappedPong env(1);
  env.reset();
  int a = 0;
  for (auto _ : state) {
    if (env.step(a++ % pong::kNumActions).done) env.reset();
    benchmark::DoNotOptimize(env.obs().data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WrappedPongStep);

// 16 wrapped games with frame stacking (the atari profile's --num-processes).
static void BM_PongVecEnv16(benchmark::State& state) {
  PongVecEnv envs(16, 1, static_cast<int>(state.range(0)));
  envs.reset();
  std::vector<int64_t> actions(16);
  std::vector<float> rewards(16);
  std::vector<uint8_t> dones(16);
  int64_t k = 0;
  for (auto _ : state) {
    for (auto& a : actions) a = k++ % pong::kNumActions;
    benchmark::DoNotOptimize(envs.step(actions.data(), rewards.data(), dones.data()).data());
  }
  state.SetItemsProcessed(state.iterations() * 16);
}
BENCHMARK(BM_PongVecEnv16)->Arg(1)->Arg(2)->UseRealTime();

BENCHMARK_MAIN();
