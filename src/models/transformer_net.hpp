// The image transformation network of pytorch/examples' fast_neural_style
// (Johnson et al. 2016), as the original's milarun.models.neural_style:
// three reflection-padded convolutions (9x9 3->32, 3x3/2 32->64, 3x3/2
// 64->128) each with affine InstanceNorm and ReLU, five residual blocks of 128,
// two nearest-upsample-x2 convolutions (128->64, 64->32) with InstanceNorm and
// ReLU, and a 9x9 32->3 convolution. 1 679 235 parameters.
#pragma once
#include <torch/torch.h>

namespace milabench {

struct TransformerNetImpl : torch::nn::Module {
  TransformerNetImpl();
  // images [B, 3, H, W] (H, W multiples of 4 give the same size back) -> [B, 3, H, W].
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Sequential down{nullptr}, residuals{nullptr}, up{nullptr};
};
TORCH_MODULE(TransformerNet);

}  // namespace milabench
