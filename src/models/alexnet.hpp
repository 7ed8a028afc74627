// torchvision's AlexNet (the "One weird trick" variant torchvision ships):
// five convolutions 64-192-384-256-256 with ReLU and three max-pools, an
// adaptive average pool to 6x6, then Dropout(0.5) + Linear 9216->4096, ReLU,
// Dropout(0.5) + Linear 4096->4096, ReLU, Linear 4096->num_classes. The same
// layer names (features.N, classifier.N) and 61 100 840 parameters with 1000
// classes; PyTorch's default initialisation, as torchvision. Input
// [B, 3, H, W] float with H, W >= 63; output logits [B, num_classes].
#pragma once
#include <torch/torch.h>

namespace milabench {

struct AlexNetImpl : torch::nn::Module {
  explicit AlexNetImpl(int64_t num_classes = 1000);
  torch::Tensor forward(torch::Tensor x);

  torch::nn::Sequential features{nullptr};
  torch::nn::AdaptiveAvgPool2d avgpool{nullptr};
  torch::nn::Sequential classifier{nullptr};
};
TORCH_MODULE(AlexNet);

}  // namespace milabench
