#include "envs/cart_pole.hpp"

#include <cmath>
#include <stdexcept>

namespace milabench {

CartPole::CartPole(uint32_t seed, int max_steps) : rng_(seed), max_steps_(max_steps) {
  if (max_steps < 1) throw std::invalid_argument("cart_pole: episode length must be >= 1");
}

std::array<double, 4> CartPole::reset() {
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  for (auto& v : state_) v = u(rng_);
  steps_ = 0;
  done_ = false;
  return state_;
}

CartPoleStep CartPole::step(int action) {
  if (done_) throw std::logic_error("cart_pole: step() on a finished episode; call reset()");
  if (action != 0 && action != 1) throw std::logic_error("cart_pole: action must be 0 or 1");
  constexpr double total_mass = kMassPole + kMassCart;
  constexpr double polemass_length = kMassPole * kLength;
  auto& [x, x_dot, theta, theta_dot] = state_;
  double force = action == 1 ? kForceMag : -kForceMag;
  double costheta = std::cos(theta), sintheta = std::sin(theta);
  double temp = (force + polemass_length * theta_dot * theta_dot * sintheta) / total_mass;
  double thetaacc = (kGravity * sintheta - costheta * temp) /
                    (kLength * (4.0 / 3.0 - kMassPole * costheta * costheta / total_mass));
  double xacc = temp - polemass_length * thetaacc * costheta / total_mass;
  x = x + kTau * x_dot;
  x_dot = x_dot + kTau * xacc;
  theta = theta + kTau * theta_dot;
  theta_dot = theta_dot + kTau * thetaacc;
  ++steps_;
  bool fell = x < -kXThreshold || x > kXThreshold || theta < -kThetaThreshold || theta > kThetaThreshold;
  bool capped = !fell && steps_ >= max_steps_;
  done_ = fell || capped;
  return {state_, 1.0, done_, capped};
}

}  // namespace milabench
