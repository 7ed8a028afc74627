// The efficient sub-pixel convolution network of pytorch/examples'
// super_resolution (Shi et al. 2016), as the original's milarun.models.subpixel:
// conv 5x5 1->64, conv 3x3 64->64, conv 3x3 64->32 (ReLU after each), conv 3x3
// 32->r^2, PixelShuffle(r). Orthogonal initial weights (gain sqrt(2) before a
// ReLU, 1 for the last conv), default biases. 58 212 parameters for r = 2.
#pragma once
#include <torch/torch.h>

namespace milabench {

struct SubPixelNetImpl : torch::nn::Module {
  explicit SubPixelNetImpl(int64_t upscale_factor);  // throws std::invalid_argument when < 1
  // luma [B, 1, H, W] -> [B, 1, H * r, W * r].
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr}, conv4{nullptr};
  torch::nn::PixelShuffle pixel_shuffle{nullptr};
};
TORCH_MODULE(SubPixelNet);

}  // namespace milabench
