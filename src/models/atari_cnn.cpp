#include "models/atari_cnn.hpp"

#include <cmath>

namespace milabench {

namespace nn = torch::nn;

namespace {

template <typename M>
M orthogonal(M m, double gain) {
  torch::NoGradGuard ng;
  nn::init::orthogonal_(m->weight, gain);
  nn::init::constant_(m->bias, 0);
  return m;
}

}  // namespace

AtariPolicyImpl::AtariPolicyImpl(int64_t in_channels, int64_t num_actions, int64_t hidden) {
  const double relu_gain = std::sqrt(2.0);
  main = register_module(
      "main",
      nn::Sequential(orthogonal(nn::Conv2d(nn::Conv2dOptions(in_channels, 32, 8).stride(4)), relu_gain), nn::ReLU(),
                     orthogonal(nn::Conv2d(nn::Conv2dOptions(32, 64, 4).stride(2)), relu_gain), nn::ReLU(),
                     orthogonal(nn::Conv2d(nn::Conv2dOptions(64, 32, 3).stride(1)), relu_gain), nn::ReLU(),
                     nn::Flatten(), orthogonal(nn::Linear(32 * 7 * 7, hidden), relu_gain), nn::ReLU()));
  critic_linear = register_module("critic_linear", orthogonal(nn::Linear(hidden, 1), 1.0));
  dist_linear = register_module("dist_linear", orthogonal(nn::Linear(hidden, num_actions), 0.01));
}

AtariOutput AtariPolicyImpl::forward(const torch::Tensor& obs) {
  auto h = main->forward(obs.to(torch::kFloat) / 255.0);
  return {torch::log_softmax(dist_linear(h), 1), critic_linear(h).squeeze(1)};
}

}  // namespace milabench
