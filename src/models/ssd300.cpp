#include "models/ssd300.hpp"

#include <array>

#include "models/resnet.hpp"

namespace milabench {
namespace {

namespace nn = torch::nn;

constexpr std::array<int64_t, 6> kExtraChannels = {256, 512, 512, 256, 256, 256};
constexpr std::array<int64_t, 6> kDefaultsPerCell = {4, 6, 6, 6, 4, 4};

nn::Sequential additional_block(int64_t in, int64_t mid, int64_t out, bool downsample) {
  const int64_t stride = downsample ? 2 : 1, padding = downsample ? 1 : 0;
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in, mid, 1)), nn::ReLU(nn::ReLUOptions(true)),
                        nn::Conv2d(nn::Conv2dOptions(mid, out, 3).stride(stride).padding(padding)),
                        nn::ReLU(nn::ReLUOptions(true)));
}

}  // namespace

ResNet34TrunkImpl::ResNet34TrunkImpl() {
  ResNet r("resnet34", 1000);
  // The first block of layer3 at stride 1: its conv1 and its downsampling 1x1
  // convolution, as the original's _ModifyBlock.
  for (const auto& block : r->layer3->children())
    for (const auto& item : block->named_children()) {
      if (item.key() == "conv1") item.value()->as<nn::Conv2d>()->options.stride(1);
      if (item.key() == "downsample") item.value()->as<nn::Sequential>()->ptr(0)->as<nn::Conv2d>()->options.stride(1);
    }
  conv1 = register_module("conv1", r->conv1);
  bn1 = register_module("bn1", r->bn1);
  layer1 = register_module("layer1", r->layer1);
  layer2 = register_module("layer2", r->layer2);
  layer3 = register_module("layer3", r->layer3);
}

torch::Tensor ResNet34TrunkImpl::forward(torch::Tensor x) {
  x = torch::max_pool2d(bn1(conv1(x)).relu_(), 3, 2, 1);
  return layer3->forward(layer2->forward(layer1->forward(x)));
}

Ssd300Impl::Ssd300Impl(int64_t label_num_) : label_num(label_num_) {
  backbone = register_module("model", ResNet34Trunk());
  additional_blocks = register_module("additional_blocks", nn::ModuleList());
  const std::array<int64_t, 5> mid = {256, 256, 128, 128, 128};
  for (size_t k = 0; k < 5; ++k)
    additional_blocks->push_back(
        additional_block(kExtraChannels[k], mid[k], kExtraChannels[k + 1], /*downsample=*/k < 3));
  loc = register_module("loc", nn::ModuleList());
  conf = register_module("conf", nn::ModuleList());
  for (size_t k = 0; k < 6; ++k) {
    loc->push_back(nn::Conv2d(nn::Conv2dOptions(kExtraChannels[k], kDefaultsPerCell[k] * 4, 3).padding(1)));
    conf->push_back(nn::Conv2d(nn::Conv2dOptions(kExtraChannels[k], kDefaultsPerCell[k] * label_num, 3).padding(1)));
  }
  for (auto* list : {&additional_blocks, &loc, &conf})
    for (auto& p : (*list)->parameters())
      if (p.dim() > 1) nn::init::xavier_uniform_(p);
}

std::vector<torch::Tensor> Ssd300Impl::features(torch::Tensor x) {
  std::vector<torch::Tensor> maps = {backbone->forward(x)};
  for (const auto& block : *additional_blocks) maps.push_back(block->as<nn::Sequential>()->forward(maps.back()));
  return maps;
}

std::pair<torch::Tensor, torch::Tensor> Ssd300Impl::forward(torch::Tensor images) {
  const auto maps = features(images);
  const int64_t n = images.size(0);
  std::vector<torch::Tensor> locs, confs;
  for (size_t k = 0; k < maps.size(); ++k) {
    locs.push_back(loc[k]->as<nn::Conv2d>()->forward(maps[k]).view({n, 4, -1}));
    confs.push_back(conf[k]->as<nn::Conv2d>()->forward(maps[k]).view({n, label_num, -1}));
  }
  return {torch::cat(locs, 2).contiguous(), torch::cat(confs, 2).contiguous()};
}

}  // namespace milabench
