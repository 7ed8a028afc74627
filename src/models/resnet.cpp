#include "models/resnet.hpp"

#include <array>
#include <stdexcept>

namespace milabench {
namespace {

namespace nn = torch::nn;

nn::Conv2d resnet_conv(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

// Conv1x1(stride) + BN when the shortcut changes shape; empty otherwise.
nn::Sequential make_downsample(int64_t in, int64_t out, int64_t stride) {
  if (stride == 1 && in == out) return nullptr;
  return nn::Sequential(resnet_conv(in, out, 1, stride, 0), nn::BatchNorm2d(out));
}

struct BasicBlockImpl : nn::Module {
  static constexpr int64_t kExpansion = 1;
  BasicBlockImpl(int64_t in, int64_t planes, int64_t stride) {
    conv1 = register_module("conv1", resnet_conv(in, planes, 3, stride, 1));
    bn1 = register_module("bn1", nn::BatchNorm2d(planes));
    conv2 = register_module("conv2", resnet_conv(planes, planes, 3, 1, 1));
    bn2 = register_module("bn2", nn::BatchNorm2d(planes));
    if (auto d = make_downsample(in, planes, stride)) downsample = register_module("downsample", d);
  }
  torch::Tensor forward(torch::Tensor x) {
    auto out = bn1(conv1(x)).relu_();
    out = bn2(conv2(out));
    out += downsample ? downsample->forward(x) : x;
    return torch::relu_(out);
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  nn::Sequential downsample{nullptr};
};
TORCH_MODULE(BasicBlock);

struct BottleneckImpl : nn::Module {
  static constexpr int64_t kExpansion = 4;
  BottleneckImpl(int64_t in, int64_t planes, int64_t stride) {
    conv1 = register_module("conv1", resnet_conv(in, planes, 1, 1, 0));
    bn1 = register_module("bn1", nn::BatchNorm2d(planes));
    conv2 = register_module("conv2", resnet_conv(planes, planes, 3, stride, 1));  // v1.5: stride here
    bn2 = register_module("bn2", nn::BatchNorm2d(planes));
    conv3 = register_module("conv3", resnet_conv(planes, planes * kExpansion, 1, 1, 0));
    bn3 = register_module("bn3", nn::BatchNorm2d(planes * kExpansion));
    if (auto d = make_downsample(in, planes * kExpansion, stride)) downsample = register_module("downsample", d);
  }
  torch::Tensor forward(torch::Tensor x) {
    auto out = bn1(conv1(x)).relu_();
    out = bn2(conv2(out)).relu_();
    out = bn3(conv3(out));
    out += downsample ? downsample->forward(x) : x;
    return torch::relu_(out);
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  nn::Sequential downsample{nullptr};
};
TORCH_MODULE(Bottleneck);

struct Spec {
  bool bottleneck;
  std::array<int64_t, 4> blocks;
};

Spec spec_of(const std::string& arch) {
  if (arch == "resnet18") return {false, {2, 2, 2, 2}};
  if (arch == "resnet34") return {false, {3, 4, 6, 3}};
  if (arch == "resnet50") return {true, {3, 4, 6, 3}};
  if (arch == "resnet101") return {true, {3, 4, 23, 3}};
  if (arch == "resnet152") return {true, {3, 8, 36, 3}};
  throw std::invalid_argument("--arch " + arch + " is not one of resnet18, resnet34, resnet50, resnet101, resnet152");
}

template <typename Block>
nn::Sequential make_layer(int64_t& in, int64_t planes, int64_t blocks, int64_t stride) {
  nn::Sequential layer;
  layer->push_back(Block(in, planes, stride));
  in = planes * Block::ContainedType::kExpansion;
  for (int64_t i = 1; i < blocks; ++i) layer->push_back(Block(in, planes, 1));
  return layer;
}

}  // namespace

std::vector<std::string> resnet_archs() { return {"resnet18", "resnet34", "resnet50", "resnet101", "resnet152"}; }

ResNetImpl::ResNetImpl(const std::string& arch, int64_t num_classes) {
  const Spec spec = spec_of(arch);
  conv1 = register_module("conv1", resnet_conv(3, 64, 7, 2, 3));
  bn1 = register_module("bn1", nn::BatchNorm2d(64));
  int64_t in = 64;
  const std::array<int64_t, 4> planes{64, 128, 256, 512};
  std::array<nn::Sequential, 4> layers;
  for (size_t i = 0; i < 4; ++i) {
    const int64_t stride = i == 0 ? 1 : 2;
    layers[i] = spec.bottleneck ? make_layer<Bottleneck>(in, planes[i], spec.blocks[i], stride)
                                : make_layer<BasicBlock>(in, planes[i], spec.blocks[i], stride);
  }
  layer1 = register_module("layer1", layers[0]);
  layer2 = register_module("layer2", layers[1]);
  layer3 = register_module("layer3", layers[2]);
  layer4 = register_module("layer4", layers[3]);
  fc = register_module("fc", nn::Linear(in, num_classes));

  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* c = m->as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
    } else if (auto* b = m->as<nn::BatchNorm2d>()) {
      nn::init::ones_(b->weight);
      nn::init::zeros_(b->bias);
    }
  }
}

torch::Tensor ResNetImpl::forward(torch::Tensor x) {
  x = bn1(conv1(x)).relu_();
  x = torch::max_pool2d(x, 3, 2, 1);
  x = layer1->forward(x);
  x = layer2->forward(x);
  x = layer3->forward(x);
  x = layer4->forward(x);
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  return fc(x);
}

}  // namespace milabench
