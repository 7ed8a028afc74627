// torchvision's ResNet family (resnet18/34/50/101/152): the v1.5 variant
// (stride on the 3x3 convolution of a Bottleneck), the same layer names
// (conv1, bn1, layer1.0.conv1, ..., downsample.0/1, fc) and the same
// parameter counts (resnet18 11 689 512, resnet50 25 557 032). Weights start
// as torchvision's do (Kaiming-normal fan_out convolutions, BatchNorm 1/0,
// default Linear); no zero-init of the last BN. Input [B, 3, H, W] float,
// output logits [B, num_classes] (any H, W >= 32 thanks to adaptive pooling).
#pragma once
#include <torch/torch.h>

#include <string>
#include <vector>

namespace milabench {

struct ResNetImpl : torch::nn::Module {
  // Throws std::invalid_argument for an arch not in resnet_archs().
  explicit ResNetImpl(const std::string& arch, int64_t num_classes = 1000);
  torch::Tensor forward(torch::Tensor x);

  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(ResNet);

// "resnet18", "resnet34", "resnet50", "resnet101", "resnet152".
std::vector<std::string> resnet_archs();

}  // namespace milabench
