// minigrid and atari: environment rules, wrappers, models, PPO pieces, short runs.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "envs/parallel.hpp"
#include "envs/pong.hpp"
#include "envs/unlock_pickup.hpp"
#include "measure/rate_meter.hpp"
#include "models/atari_cnn.hpp"
#include "models/babyai_acmodel.hpp"
#include "sys/cpus.hpp"
#include "test_support.hpp"
#include "training/ppo.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

using namespace milabench;
using namespace milabench::test;
using namespace milabench::minigrid;

namespace {

// Two rooms, walls only; the caller adds doors and objects.
std::vector<Cell> empty_rooms() {
  std::vector<Cell> g(UnlockPickup::kWidth * UnlockPickup::kHeight);
  auto set = [&](int x, int y, Cell c) { g[y * UnlockPickup::kWidth + x] = c; };
  for (int x = 0; x < UnlockPickup::kWidth; ++x) set(x, 0, {kWall, kGrey, 0}), set(x, 5, {kWall, kGrey, 0});
  for (int y = 0; y < UnlockPickup::kHeight; ++y)
    set(0, y, {kWall, kGrey, 0}), set(5, y, {kWall, kGrey, 0}), set(10, y, {kWall, kGrey, 0});
  return g;
}
void put(std::vector<Cell>& g, int x, int y, Cell c) { g[y * UnlockPickup::kWidth + x] = c; }

std::array<int, 3> obs_at(const UnlockPickup& e, int a, int b) {
  const uint8_t* o = &e.obs()[(a * kView + b) * 3];
  return {o[0], o[1], o[2]};
}

}  // namespace

TEST(UnlockPickupEnv, DoorOpensOnlyWithKeyOfItsColour) {
  UnlockPickup env(1);
  auto g = empty_rooms();
  put(g, 5, 2, {kDoor, kRed, kLocked});
  env.set_state(g, 4, 2, /*dir=*/0, kBlue);
  env.step(kToggle);  // no key
  EXPECT_EQ(env.cell(5, 2).state, kLocked);
  env.step(kForward);
  EXPECT_EQ(env.agent_x(), 4);  // a locked door blocks
  env.set_state(g, 4, 2, 0, kBlue, Cell{kKey, kBlue, 0});
  env.step(kToggle);  // wrong colour
  EXPECT_EQ(env.cell(5, 2).state, kLocked);
  env.set_state(g, 4, 2, 0, kBlue, Cell{kKey, kRed, 0});
  env.step(kToggle);
  EXPECT_EQ(env.cell(5, 2).state, kOpen);
  env.step(kForward);
  EXPECT_EQ(env.agent_x(), 5);  // standing in the open doorway
  env.step(kForward);
  EXPECT_EQ(env.agent_x(), 6);
}

TEST(UnlockPickupEnv, KeyPickupFromTheFloorThenUnlock) {
  UnlockPickup env(2);
  auto g = empty_rooms();
  put(g, 5, 3, {kDoor, kGreen, kLocked});
  put(g, 3, 3, {kKey, kGreen, 0});
  env.set_state(g, 2, 3, 0, kRed);
  auto r = env.step(kPickup);
  ASSERT_NE(env.carrying(), nullptr);
  EXPECT_EQ(env.carrying()->type, kKey);
  EXPECT_FALSE(r.done);  // the key is not the mission's box
  EXPECT_EQ(env.cell(3, 3).type, kEmpty);
  env.step(kForward);
  env.step(kForward);  // now facing the door from (4, 3)
  env.step(kToggle);
  EXPECT_EQ(env.cell(5, 3).state, kOpen);
  env.step(kToggle);  // an unlocked door closes and opens without the key check
  EXPECT_EQ(env.cell(5, 3).state, kClosed);
}

TEST(UnlockPickupEnv, PickingUpTheBoxEndsWithDiscountedReward) {
  UnlockPickup env(3);
  auto g = empty_rooms();
  put(g, 8, 2, {kBox, kPurple, 0});
  env.set_state(g, 7, 2, 0, kPurple, {});
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(env.step(kDone).done);
  auto r = env.step(kPickup);
  EXPECT_TRUE(r.done);
  EXPECT_TRUE(r.success);
  EXPECT_DOUBLE_EQ(r.reward, 1.0 - 0.9 * 4.0 / 288.0);
  EXPECT_THROW(env.step(kLeft), std::logic_error);
}

TEST(UnlockPickupEnv, StepLimitEndsWithoutReward) {
  UnlockPickup env(4);
  env.reset();
  GridStep r{};
  for (int i = 0; i < UnlockPickup::kMaxSteps; ++i) {
    ASSERT_FALSE(env.done());
    r = env.step(kDone);
    EXPECT_EQ(r.reward, 0.0);
  }
  EXPECT_TRUE(r.done);
  EXPECT_FALSE(r.success);
  EXPECT_THROW(env.step(7), std::logic_error);
}

TEST(UnlockPickupEnv, ResetBuildsTheLevel) {
  UnlockPickup env(5);
  for (int episode = 0; episode < 20; ++episode) {
    env.reset();
    int doors = 0, keys = 0, boxes = 0;
    for (int y = 0; y < UnlockPickup::kHeight; ++y)
      for (int x = 0; x < UnlockPickup::kWidth; ++x) {
        const Cell& c = env.cell(x, y);
        if (c.type == kDoor) {
          ++doors;
          EXPECT_EQ(x, 5);
          EXPECT_EQ(c.state, kLocked);
          EXPECT_EQ(c.color, env.door_color());
        }
        if (c.type == kKey) {
          ++keys;
          EXPECT_LT(x, 5);
          EXPECT_EQ(c.color, env.door_color());
        }
        if (c.type == kBox) {
          ++boxes;
          EXPECT_GT(x, 5);
          EXPECT_EQ(c.color, env.box_color());
        }
      }
    EXPECT_EQ(doors, 1);
    EXPECT_EQ(keys, 1);
    EXPECT_EQ(boxes, 1);
    EXPECT_LT(env.agent_x(), 5);
  }
}

// Agent at (2,3) facing right: view column a = grid y, row b = 8 - grid x.
TEST(UnlockPickupEnv, ObservationEncodingAndOcclusion) {
  UnlockPickup env(6);
  auto g = empty_rooms();
  put(g, 5, 3, {kDoor, kYellow, kLocked});
  put(g, 3, 1, {kKey, kYellow, 0});
  env.set_state(g, 2, 3, 0, kRed);
  EXPECT_EQ(obs_at(env, 3, 6), (std::array<int, 3>{kEmpty, 0, 0}));  // the agent's own cell
  EXPECT_EQ(obs_at(env, 3, 3), (std::array<int, 3>{kDoor, kYellow, kLocked}));
  EXPECT_EQ(obs_at(env, 1, 5), (std::array<int, 3>{kKey, kYellow, 0}));
  EXPECT_EQ(obs_at(env, 0, 4), (std::array<int, 3>{kWall, kGrey, 0}));  // top wall, y = 0
  EXPECT_EQ(obs_at(env, 5, 6), (std::array<int, 3>{kWall, kGrey, 0}));  // bottom wall, y = 5
  EXPECT_EQ(obs_at(env, 6, 6), (std::array<int, 3>{kUnseen, 0, 0}));    // behind the bottom wall
  EXPECT_EQ(obs_at(env, 3, 2), (std::array<int, 3>{kUnseen, 0, 0}));    // behind the locked door
  EXPECT_EQ(obs_at(env, 2, 4), (std::array<int, 3>{kEmpty, 0, 0}));
  put(g, 5, 3, {kDoor, kYellow, kOpen});
  env.set_state(g, 2, 3, 0, kRed, Cell{kKey, kBlue, 0});
  EXPECT_EQ(obs_at(env, 3, 3), (std::array<int, 3>{kDoor, kYellow, kOpen}));
  EXPECT_EQ(obs_at(env, 3, 2), (std::array<int, 3>{kEmpty, 0, 0}));    // seen through the open door
  EXPECT_EQ(obs_at(env, 3, 6), (std::array<int, 3>{kKey, kBlue, 0}));  // carried object on the agent
  // Facing up from (2,3): the key at (3,1) is one right, two ahead.
  env.set_state(g, 2, 3, 3, kRed);
  EXPECT_EQ(obs_at(env, 4, 4), (std::array<int, 3>{kKey, kYellow, 0}));
  EXPECT_EQ(obs_at(env, 3, 3), (std::array<int, 3>{kWall, kGrey, 0}));  // y = 0 three ahead
}

TEST(PongGame, BallBouncesOffPaddleAndWalls) {
  Pong game(1);
  game.reset();
  auto& s = game.state();
  s.serve_wait = 0;
  s.ball_x = pong::kAgentX - pong::kBallW - 1, s.ball_y = 100, s.ball_vx = 2.5, s.ball_vy = 0;
  s.agent_y = 94;
  EXPECT_EQ(game.step(pong::kNoop), 0);
  EXPECT_LT(s.ball_vx, 0);
  EXPECT_LE(s.ball_x + pong::kBallW, pong::kAgentX);
  s.ball_y = pong::kTop + 1, s.ball_vy = -2;
  game.step(pong::kNoop);
  EXPECT_GT(s.ball_vy, 0);
  EXPECT_GE(s.ball_y, pong::kTop);
}

TEST(PongGame, MissesScoreAndTheGameEndsAt21) {
  Pong game(2);
  game.reset();
  auto& s = game.state();
  s.serve_wait = 0;
  s.ball_x = 150, s.ball_y = 60, s.ball_vx = 2.5, s.ball_vy = 0, s.agent_y = 170;
  double r = 0;
  for (int i = 0; i < 10 && r == 0; ++i) r = game.step(pong::kNoop);
  EXPECT_EQ(r, -1);
  EXPECT_EQ(s.opponent_score, 1);
  s.serve_wait = 0, s.agent_score = 20;
  s.ball_x = -1, s.ball_y = 40, s.ball_vx = -2.5, s.ball_vy = 0, s.opponent_y = 170;
  r = game.step(pong::kNoop);
  EXPECT_EQ(r, 1);
  EXPECT_TRUE(game.done());
  EXPECT_THROW(game.step(pong::kNoop), std::logic_error);
}

TEST(PongGame, UpAndDownMoveTheAgentPaddle) {
  Pong game(3);
  game.reset();
  double y0 = game.state().agent_y;
  game.step(pong::kUp);
  EXPECT_LT(game.state().agent_y, y0);
  game.step(pong::kDownFire);
  game.step(pong::kDown);
  EXPECT_GT(game.state().agent_y, y0);
  EXPECT_THROW(game.step(6), std::logic_error);
}

TEST(PongGame, RendersBallPaddlesAndBackground) {
  Pong game(4);
  game.reset();
  auto& s = game.state();
  s.serve_wait = 0, s.ball_x = 80, s.ball_y = 100, s.agent_y = 50;
  std::vector<uint8_t> rgb(pong::kFrameBytes);
  game.render(rgb.data());
  auto px = [&](int y, int x) {
    return std::array<int, 3>{rgb[(y * 160 + x) * 3], rgb[(y * 160 + x) * 3 + 1], rgb[(y * 160 + x) * 3 + 2]};
  };
  EXPECT_EQ(px(101, 80), (std::array<int, 3>{236, 236, 236}));
  EXPECT_EQ(px(55, pong::kAgentX + 1), (std::array<int, 3>{92, 186, 92}));
  EXPECT_EQ(px(150, 60), (std::array<int, 3>{144, 72, 17}));
}

TEST(AtariWrappers, WarpFrameIsGrayAreaResize) {
  std::vector<uint8_t> rgb(pong::kFrameBytes);
  for (int p = 0; p < pong::kH * pong::kW; ++p) rgb[3 * p] = 144, rgb[3 * p + 1] = 72, rgb[3 * p + 2] = 17;
  for (int p = 0; p < pong::kW * 105; ++p) rgb[3 * p] = rgb[3 * p + 1] = rgb[3 * p + 2] = 200;  // top half
  std::vector<uint8_t> out(84 * 84);
  warp_frame(rgb.data(), out.data());
  EXPECT_EQ(out[0], 200);
  EXPECT_EQ(out[83 * 84 + 83], 87);  // round(0.299*144 + 0.587*72 + 0.114*17)
  EXPECT_EQ(out[41 * 84 + 10], 200);
  EXPECT_EQ(out[42 * 84 + 10], 87);
}

TEST(AtariWrappers, StackedObservationsAndClippedRewards) {
  PongVecEnv envs(2, 7, 2);
  const size_t frame = 84 * 84;
  auto obs = envs.reset();
  ASSERT_EQ(obs.size(), 2 * 4 * frame);
  for (size_t k = 0; k < 3 * frame; ++k) ASSERT_EQ(obs[k], 0) << "older frames are zero after a reset";
  EXPECT_GT(*std::max_element(obs.begin() + 3 * frame, obs.begin() + 4 * frame), 0);
  std::vector<uint8_t> last(obs.begin() + 3 * frame, obs.begin() + 4 * frame);
  int64_t actions[2] = {pong::kUp, pong::kDown};
  float rewards[2];
  uint8_t dones[2];
  auto next = envs.step(actions, rewards, dones);
  EXPECT_TRUE(std::equal(last.begin(), last.end(), next.begin() + 2 * frame));  // shifted by one
  // A game the agent is sure to lose: the clipped reward of each step is in {-1, 0, 1}.
  WrappedPong w(9);
  w.reset();
  float total = 0;
  for (int i = 0; i < 400; ++i) {
    auto st = w.step(pong::kUp);
    EXPECT_TRUE(st.reward == -1.f || st.reward == 0.f || st.reward == 1.f);
    total += st.reward;
    if (st.done) {
      EXPECT_LE(st.raw_return, -1.0);
      break;
    }
  }
  EXPECT_LT(total, 0);
}

TEST(ParallelFor, CoversEveryIndexAndRethrows) {
  std::vector<int> hits(37, 0);
  parallel_for(37, 4, [&](int i) { hits[i]++; });
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 37);
  EXPECT_THROW(parallel_for(8, 3,
                            [](int i) {
                              if (i == 5) throw std::runtime_error("x");
                            }),
               std::runtime_error);
  EXPECT_GE(usable_cpu_count(), 1);
}

TEST(RlModels, ParameterCounts) {
  // Conv(3,128,2)+BN 1664+256, Conv(128,128,3)+BN 147584+256, 2 FiLM blocks 2*328704,
  // Embedding(100,128) 12800, GRU(128,128) 99072, LSTMCell(128,128) 132096, actor 8711, critic 8321.
  BabyAIModel film(BabyAIModelOptions{});
  EXPECT_EQ(count_parameters(*film), 1068168);
  BabyAIModelOptions light;
  light.arch = "cnn1", light.use_instr = false, light.use_memory = false;
  EXPECT_EQ(count_parameters(*BabyAIModel(light)), 208 + 2080 + 16512 + 8711 + 8321);
  // CNNBase: 8224 + 32832 + 18464 + 803328, critic 513, Categorical head 3078.
  EXPECT_EQ(count_parameters(*AtariPolicy(4, 6)), 866439);
  BabyAIModelOptions bad;
  bad.use_instr = false;
  EXPECT_THROW(BabyAIModel{bad}, std::invalid_argument);
}

TEST(RlModels, OutputShapes) {
  BabyAIModel m(BabyAIModelOptions{});
  auto out =
      m->forward(torch::randint(0, 6, {3, 7, 7, 3}).to(torch::kFloat),
                 torch::tensor({1, 2, 3, 5, 4}, torch::kLong).view({1, 5}).repeat({3, 1}), torch::zeros({3, 256}));
  EXPECT_EQ(out.logits.sizes(), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(out.value.sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(out.memory.sizes(), (std::vector<int64_t>{3, 256}));
  EXPECT_NEAR(out.logits.exp().sum(1)[0].item<double>(), 1.0, 1e-5);
  AtariPolicy p(4, 6);
  auto a = p->forward(torch::randint(0, 255, {2, 4, 84, 84}).to(torch::kUInt8));
  EXPECT_EQ(a.logits.sizes(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(a.value.sizes(), (std::vector<int64_t>{2}));
}

TEST(Ppo, GaeMatchesHandComputedValues) {
  auto r = torch::tensor({1.f, 1.f}).view({2, 1}), v = torch::zeros({2, 1});
  auto a = gae(r, v, torch::zeros({1}), torch::ones({2, 1}), 0.5, 1.0);
  EXPECT_FLOAT_EQ(a.advantages[0][0].item<float>(), 1.5f);
  EXPECT_FLOAT_EQ(a.advantages[1][0].item<float>(), 1.0f);
  auto cut = gae(r, v, torch::full({1}, 10.f), torch::tensor({0.f, 1.f}).view({2, 1}), 0.5, 0.5);
  EXPECT_FLOAT_EQ(cut.advantages[0][0].item<float>(), 1.0f);  // no bootstrap across the episode end
  EXPECT_FLOAT_EQ(cut.advantages[1][0].item<float>(), 6.0f);  // 1 + 0.5 * 10
  EXPECT_FLOAT_EQ(cut.returns[1][0].item<float>(), 6.0f);
}

TEST(Ppo, ClippedSurrogateStopsAtTheClip) {
  auto logits = torch::log_softmax(torch::tensor({{2.f, 0.f}}), 1);
  auto act = torch::tensor({0}, torch::kInt64);
  auto old = log_prob(logits, act) - 1.0;  // ratio e > 1 + clip
  auto t = ppo_terms(logits, act, old, torch::ones({1}), torch::zeros({1}), torch::zeros({1}), torch::ones({1}), 0.2);
  EXPECT_NEAR(t.policy_loss.item<double>(), -1.2, 1e-5);
  EXPECT_NEAR(t.value_loss.item<double>(), 1.0, 1e-6);
}

TEST(Minigrid, ShortRun) {
  auto r = run_workload("minigrid",
                        {"--env", "BabyAI-UnlockPickup-v0", "--procs", "4", "--frames-per-proc", "10", "--recurrence",
                         "5", "--batch-size", "20"},
                        80);
  EXPECT_EQ(r.count, 80);  // two updates of 4 x 10 frames
  EXPECT_EQ(r.extra["model"]["parameters"].get<int64_t>(), 1068168);
  EXPECT_EQ(r.extra["stand_ins"], nlohmann::json::array());  // same dynamics as BabyAI's: not a stand-in
  EXPECT_TRUE(std::isfinite(r.extra["metrics"]["loss"].get<double>()));
}

TEST(Minigrid, RejectsOtherLevelsAndBadRecurrence) {
  EXPECT_THROW(run_workload("minigrid", {"--env", "BabyAI-GoToLocal-v0"}, 10), std::invalid_argument);
  EXPECT_THROW(run_workload("minigrid", {"--env", "BabyAI-UnlockPickup-v0", "--frames-per-proc", "30"}, 10),
               std::invalid_argument);
}

TEST(Atari, ShortRun) {
  auto r = run_workload("atari",
                        {"--env-name", "PongNoFrameskip-v4", "--num-steps", "8", "--num-processes", "2", "--algo",
                         "ppo", "--use-gae", "--clip-param", "0.1", "--value-loss-coef", "0.5", "--num-mini-batch", "2",
                         "--use-linear-lr-decay", "--entropy-coef", "0.01"},
                        4);
  EXPECT_EQ(r.count, 4);  // two updates, num-processes each
  EXPECT_EQ(r.extra["model"]["parameters"].get<int64_t>(), 866439);
  // Not the ALE: the result says so (results/stand_ins.hpp), for the report to show.
  EXPECT_EQ(r.extra["stand_ins"], nlohmann::json::array({"pong_like_game"}));
  EXPECT_EQ(r.extra["dataset"]["stand_in"], "pong_like_game");
  EXPECT_TRUE(std::isfinite(r.extra["metrics"]["loss"].get<double>()));
}

TEST(Atari, DefaultArgumentsRunA2c) {
  // `milarun run atari` with no flags: the original's defaults (a2c, 16
  // processes, 5 steps), one RMSprop update per rollout, counting 16.
  auto r = run_workload("atari", {}, 17);
  EXPECT_EQ(r.count, 32);
  EXPECT_EQ(r.extra["metrics"]["algorithm"], "a2c");
  EXPECT_EQ(r.extra["metrics"]["updates"], 2);
  EXPECT_TRUE(std::isfinite(r.extra["metrics"]["loss"].get<double>()));
}

TEST(Atari, PpoMakesEpochsTimesMinibatchesUpdates) {
  auto r = run_workload(
      "atari",
      {"--algo", "ppo", "--num-steps", "4", "--num-processes", "2", "--num-mini-batch", "2", "--ppo-epoch", "3"}, 2);
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(r.extra["metrics"]["updates"], 3 * 2);
}

TEST(Atari, AcktrIsRejectedWithAClearMessage) {
  try {
    run_workload("atari", {"--algorithm", "acktr"}, 4);
    FAIL() << "acktr accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("acktr"), std::string::npos) << e.what();
  }
}

TEST(RlRegistry, ExperimentNamesFromTheProfiles) {
  const WorkloadInfo* m = find_workload("milarun.models.minigrid:main");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->count_unit, "frames");
  EXPECT_EQ(m->default_max_count, 50000);
  const WorkloadInfo* a = find_workload("milabench.models.atari:main");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->name, "atari");
  EXPECT_EQ(a->default_max_count, 1000);
}
