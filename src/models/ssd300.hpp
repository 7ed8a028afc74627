// SSD300 with a ResNet-34 backbone, as the original (milabench's ssd, from the
// MLPerf v0.5 SSD reference): torchvision resnet34's conv1 .. layer3 with
// layer3's stride-2 convolutions set to stride 1 (a 38x38 map of 256 channels
// for a 300x300 input), five additional blocks (1x1 conv + ReLU, 3x3 conv +
// ReLU, with biases; maps 19, 10, 5, 3, 1 of 512, 512, 256, 256, 256
// channels), and per map a 3x3 location head (4 per default box) and class
// head (label_num per default box). Additional blocks and heads start
// Xavier-uniform (weights) as the original; the backbone as torchvision's
// (the original loaded ImageNet weights: here random, see docs/workloads.md).
// With label_num 81: 19 972 534 parameters.
#pragma once
#include <torch/torch.h>

#include <utility>
#include <vector>

namespace milabench {

// torchvision resnet34's conv1, bn1, layer1..layer3 (same names and
// parameters), layer3 at stride 1: [N, 3, 300, 300] -> [N, 256, 38, 38].
struct ResNet34TrunkImpl : torch::nn::Module {
  ResNet34TrunkImpl();
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr};
};
TORCH_MODULE(ResNet34Trunk);

struct Ssd300Impl : torch::nn::Module {
  explicit Ssd300Impl(int64_t label_num = 81);
  // images [N, 3, 300, 300] -> (locations [N, 4, 8732], scores [N, label_num, 8732]),
  // default boxes in the order of ssd300_default_boxes().
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor images);
  // The six feature maps (for tests): sides 38, 19, 10, 5, 3, 1.
  std::vector<torch::Tensor> features(torch::Tensor images);

  int64_t label_num;
  ResNet34Trunk backbone{nullptr};  // registered as "model", the original's name
  torch::nn::ModuleList additional_blocks{nullptr}, loc{nullptr}, conf{nullptr};
};
TORCH_MODULE(Ssd300);

}  // namespace milabench
