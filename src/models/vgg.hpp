// torchvision's VGG16 (configuration "D", no batch norm): `features` with
// torchvision's indices (features.0 ... features.30), AdaptiveAvgPool2d(7x7)
// and the 4096-4096-1000 classifier: 138 357 544 parameters. Weights start as
// torchvision's random initialisation (Kaiming-normal fan_out convolutions,
// N(0, 0.01) linears, zero biases); nothing is downloaded (no pretrained
// weights in this build).
#pragma once
#include <torch/torch.h>

#include <array>

namespace milabench {

struct Vgg16Impl : torch::nn::Module {
  explicit Vgg16Impl(int64_t num_classes = 1000);
  // images [B, 3, H, W] (H, W >= 32) -> logits [B, num_classes].
  torch::Tensor forward(torch::Tensor x);
  // The perceptual-loss activations of pytorch/examples' fast_neural_style:
  // relu1_2, relu2_2, relu3_3, relu4_3 (after features.3, .8, .15, .22); the
  // layers after features.22 are not run.
  std::array<torch::Tensor, 4> style_features(torch::Tensor x);

  torch::nn::Sequential features{nullptr};
  torch::nn::AdaptiveAvgPool2d avgpool{nullptr};
  torch::nn::Sequential classifier{nullptr};
};
TORCH_MODULE(Vgg16);

}  // namespace milabench
