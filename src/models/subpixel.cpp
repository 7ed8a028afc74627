#include "models/subpixel.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace milabench {
namespace {

torch::nn::Conv2d same_conv(int64_t in, int64_t out, int64_t k) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).stride(1).padding(k / 2));
}

}  // namespace

SubPixelNetImpl::SubPixelNetImpl(int64_t r) {
  if (r < 1) throw std::invalid_argument("--upscale-factor must be >= 1, got " + std::to_string(r));
  conv1 = register_module("conv1", same_conv(1, 64, 5));
  conv2 = register_module("conv2", same_conv(64, 64, 3));
  conv3 = register_module("conv3", same_conv(64, 32, 3));
  conv4 = register_module("conv4", same_conv(32, r * r, 3));
  pixel_shuffle = register_module("pixel_shuffle", torch::nn::PixelShuffle(r));
  torch::NoGradGuard no_grad;
  const double relu_gain = std::sqrt(2.0);  // init.calculate_gain('relu')
  torch::nn::init::orthogonal_(conv1->weight, relu_gain);
  torch::nn::init::orthogonal_(conv2->weight, relu_gain);
  torch::nn::init::orthogonal_(conv3->weight, relu_gain);
  torch::nn::init::orthogonal_(conv4->weight);
}

torch::Tensor SubPixelNetImpl::forward(const torch::Tensor& x) {
  auto h = torch::relu(conv1(x));
  h = torch::relu(conv2(h));
  h = torch::relu(conv3(h));
  return pixel_shuffle(conv4(h));
}

}  // namespace milabench
