// CartPole-v1 (gym's classic-control physics, Euler integration). No torch.
#pragma once
#include <array>
#include <cstdint>
#include <random>

namespace milabench {

struct CartPoleStep {
  std::array<double, 4> state;  // x, x_dot, theta, theta_dot
  double reward;                // 1 for every step taken, the last one included
  bool done;                    // fell (|x| > 2.4 or |theta| > 12 deg) or hit max_steps
  bool truncated;               // done only because of max_steps
};

class CartPole {
 public:
  static constexpr double kGravity = 9.8, kMassCart = 1.0, kMassPole = 0.1;
  static constexpr double kLength = 0.5;  // half the pole's length
  static constexpr double kForceMag = 10.0, kTau = 0.02;
  static constexpr double kXThreshold = 2.4;
  static constexpr double kThetaThreshold = 12 * 2 * 3.14159265358979323846 / 360;  // 0.2095 rad

  // max_steps: episode length cap (>= 1).
  CartPole(uint32_t seed, int max_steps = 500);

  // New episode: each state component uniform in (-0.05, 0.05).
  std::array<double, 4> reset();
  // action 0 pushes left, 1 pushes right. Throws std::logic_error when the
  // episode is done (call reset()) or the action is not 0/1.
  CartPoleStep step(int action);

  const std::array<double, 4>& state() const { return state_; }
  int steps() const { return steps_; }
  bool done() const { return done_; }

 private:
  std::mt19937 rng_;
  int max_steps_;
  std::array<double, 4> state_{};
  int steps_ = 0;
  bool done_ = true;
};

}  // namespace milabench
