// The DCGAN of pytorch/examples (as the original's milarun.models.dcgan):
// 64x64 images, latent size nz, feature widths ngf / ndf, no biases.
// Weights start as the example's weights_init: convolutions N(0, 0.02),
// BatchNorm weight N(1, 0.02) and bias 0. With nz=100, ngf=ndf=64, nc=3 the
// generator has 3 576 704 parameters and the discriminator 2 765 568.
#pragma once
#include <torch/torch.h>

namespace milabench {

struct DcganGeneratorImpl : torch::nn::Module {
  DcganGeneratorImpl(int64_t nz, int64_t ngf, int64_t nc);
  // z [B, nz, 1, 1] -> images [B, nc, 64, 64] in (-1, 1) (tanh).
  torch::Tensor forward(const torch::Tensor& z);
  torch::nn::Sequential main{nullptr};
};
TORCH_MODULE(DcganGenerator);

struct DcganDiscriminatorImpl : torch::nn::Module {
  DcganDiscriminatorImpl(int64_t nc, int64_t ndf);
  // images [B, nc, 64, 64] -> probability of "real" [B] (sigmoid).
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Sequential main{nullptr};
};
TORCH_MODULE(DcganDiscriminator);

}  // namespace milabench
