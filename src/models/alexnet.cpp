#include "models/alexnet.hpp"

namespace milabench {

namespace nn = torch::nn;

namespace {

nn::Conv2d alexnet_conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding));
}

nn::MaxPool2d pool() { return nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2)); }

nn::ReLU relu() { return nn::ReLU(nn::ReLUOptions(true)); }

}  // namespace

AlexNetImpl::AlexNetImpl(int64_t num_classes) {
  features = register_module("features", nn::Sequential(alexnet_conv(3, 64, 11, 4, 2), relu(), pool(),   //
                                                        alexnet_conv(64, 192, 5, 1, 2), relu(), pool(),  //
                                                        alexnet_conv(192, 384, 3, 1, 1), relu(),         //
                                                        alexnet_conv(384, 256, 3, 1, 1), relu(),         //
                                                        alexnet_conv(256, 256, 3, 1, 1), relu(), pool()));
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({6, 6})));
  classifier = register_module(
      "classifier", nn::Sequential(nn::Dropout(0.5), nn::Linear(256 * 6 * 6, 4096), relu(),  //
                                   nn::Dropout(0.5), nn::Linear(4096, 4096), relu(), nn::Linear(4096, num_classes)));
}

torch::Tensor AlexNetImpl::forward(torch::Tensor x) {
  x = avgpool->forward(features->forward(x));
  return classifier->forward(torch::flatten(x, 1));
}

}  // namespace milabench
