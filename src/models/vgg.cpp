#include "models/vgg.hpp"

namespace milabench {
namespace {

namespace nn = torch::nn;

constexpr int64_t kPool = -1;
constexpr int64_t kConfigD[] = {64,    64,  kPool, 128, 128,   kPool, 256, 256, 256,
                                kPool, 512, 512,   512, kPool, 512,   512, 512, kPool};
constexpr int kStyleLayers[4] = {3, 8, 15, 22};  // relu1_2, relu2_2, relu3_3, relu4_3

}  // namespace

Vgg16Impl::Vgg16Impl(int64_t num_classes) {
  features = nn::Sequential();
  int64_t in = 3;
  for (int64_t v : kConfigD) {
    if (v == kPool) {
      features->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)));
      continue;
    }
    features->push_back(nn::Conv2d(nn::Conv2dOptions(in, v, 3).padding(1)));
    features->push_back(nn::ReLU(true));
    in = v;
  }
  register_module("features", features);
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({7, 7})));
  classifier = register_module("classifier", nn::Sequential(nn::Linear(512 * 7 * 7, 4096), nn::ReLU(true),
                                                            nn::Dropout(0.5), nn::Linear(4096, 4096), nn::ReLU(true),
                                                            nn::Dropout(0.5), nn::Linear(4096, num_classes)));
  torch::NoGradGuard no_grad;
  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* c = m->as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
      c->bias.zero_();
    } else if (auto* l = m->as<nn::Linear>()) {
      l->weight.normal_(0.0, 0.01);
      l->bias.zero_();
    }
  }
}

torch::Tensor Vgg16Impl::forward(torch::Tensor x) {
  x = avgpool(features->forward(x));
  return classifier->forward(torch::flatten(x, 1));
}

std::array<torch::Tensor, 4> Vgg16Impl::style_features(torch::Tensor x) {
  std::array<torch::Tensor, 4> out;
  size_t taken = 0;
  int index = 0;
  for (auto& layer : *features) {
    x = layer.forward(x);
    if (index++ == kStyleLayers[taken]) {
      out[taken++] = x;
      if (taken == out.size()) break;
    }
  }
  return out;
}

}  // namespace milabench
