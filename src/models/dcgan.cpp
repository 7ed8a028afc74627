#include "models/dcgan.hpp"

namespace milabench {
namespace {

namespace nn = torch::nn;

nn::ConvTranspose2d up(int64_t in, int64_t out, int64_t stride, int64_t pad) {
  return nn::ConvTranspose2d(nn::ConvTranspose2dOptions(in, out, 4).stride(stride).padding(pad).bias(false));
}

nn::Conv2d down(int64_t in, int64_t out, int64_t stride, int64_t pad) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 4).stride(stride).padding(pad).bias(false));
}

nn::LeakyReLU leaky() { return nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2).inplace(true)); }

// The example's weights_init, applied to every submodule.
void dcgan_init(nn::Module& net) {
  torch::NoGradGuard no_grad;
  for (auto& m : net.modules(/*include_self=*/false)) {
    if (auto* c = m->as<nn::Conv2d>()) c->weight.normal_(0.0, 0.02);
    if (auto* c = m->as<nn::ConvTranspose2d>()) c->weight.normal_(0.0, 0.02);
    if (auto* b = m->as<nn::BatchNorm2d>()) {
      b->weight.normal_(1.0, 0.02);
      b->bias.zero_();
    }
  }
}

}  // namespace

DcganGeneratorImpl::DcganGeneratorImpl(int64_t nz, int64_t ngf, int64_t nc) {
  main = register_module("main",
                         nn::Sequential(up(nz, ngf * 8, 1, 0), nn::BatchNorm2d(ngf * 8), nn::ReLU(true),       // 4x4
                                        up(ngf * 8, ngf * 4, 2, 1), nn::BatchNorm2d(ngf * 4), nn::ReLU(true),  // 8x8
                                        up(ngf * 4, ngf * 2, 2, 1), nn::BatchNorm2d(ngf * 2), nn::ReLU(true),  // 16x16
                                        up(ngf * 2, ngf, 2, 1), nn::BatchNorm2d(ngf), nn::ReLU(true),          // 32x32
                                        up(ngf, nc, 2, 1), nn::Tanh()));                                       // 64x64
  dcgan_init(*this);
}

torch::Tensor DcganGeneratorImpl::forward(const torch::Tensor& z) { return main->forward(z); }

DcganDiscriminatorImpl::DcganDiscriminatorImpl(int64_t nc, int64_t ndf) {
  main = register_module("main", nn::Sequential(down(nc, ndf, 2, 1), leaky(),                                 // 32x32
                                                down(ndf, ndf * 2, 2, 1), nn::BatchNorm2d(ndf * 2), leaky(),  // 16x16
                                                down(ndf * 2, ndf * 4, 2, 1), nn::BatchNorm2d(ndf * 4), leaky(),  // 8x8
                                                down(ndf * 4, ndf * 8, 2, 1), nn::BatchNorm2d(ndf * 8), leaky(),  // 4x4
                                                down(ndf * 8, 1, 1, 0), nn::Sigmoid()));                          // 1x1
  dcgan_init(*this);
}

torch::Tensor DcganDiscriminatorImpl::forward(const torch::Tensor& x) { return main->forward(x).view({-1}); }

}  // namespace milabench
