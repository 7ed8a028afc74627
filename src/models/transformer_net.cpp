#include "models/transformer_net.hpp"

namespace milabench {
namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

// ReflectionPad2d(k / 2), then an optional nearest upsampling before it
// (UpsampleConvLayer), then Conv2d(k, stride).
struct ConvLayerImpl : nn::Module {
  ConvLayerImpl(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t upsample = 1)
      : upsample(upsample), pad(nn::ReflectionPad2dOptions(k / 2)) {
    register_module("reflection_pad", pad);
    conv2d = register_module("conv2d", nn::Conv2d(nn::Conv2dOptions(in, out, k).stride(stride)));
  }
  torch::Tensor forward(torch::Tensor x) {
    if (upsample > 1)
      x = F::interpolate(x, F::InterpolateFuncOptions()
                                .scale_factor(std::vector<double>{double(upsample), double(upsample)})
                                .mode(torch::kNearest));
    return conv2d(pad(x));
  }
  int64_t upsample;
  nn::ReflectionPad2d pad;
  nn::Conv2d conv2d{nullptr};
};
TORCH_MODULE(ConvLayer);

nn::InstanceNorm2d instance_norm(int64_t c) { return nn::InstanceNorm2d(nn::InstanceNorm2dOptions(c).affine(true)); }

struct ResidualBlockImpl : nn::Module {
  explicit ResidualBlockImpl(int64_t c) {
    conv1 = register_module("conv1", ConvLayer(c, c, 3, 1));
    in1 = register_module("in1", instance_norm(c));
    conv2 = register_module("conv2", ConvLayer(c, c, 3, 1));
    in2 = register_module("in2", instance_norm(c));
  }
  torch::Tensor forward(const torch::Tensor& x) { return in2(conv2(torch::relu(in1(conv1(x))))) + x; }
  ConvLayer conv1{nullptr}, conv2{nullptr};
  nn::InstanceNorm2d in1{nullptr}, in2{nullptr};
};
TORCH_MODULE(ResidualBlock);

}  // namespace

TransformerNetImpl::TransformerNetImpl() {
  down = register_module(
      "down", nn::Sequential(ConvLayer(3, 32, 9, 1), instance_norm(32), nn::ReLU(), ConvLayer(32, 64, 3, 2),
                             instance_norm(64), nn::ReLU(), ConvLayer(64, 128, 3, 2), instance_norm(128), nn::ReLU()));
  residuals = register_module("residuals", nn::Sequential(ResidualBlock(128), ResidualBlock(128), ResidualBlock(128),
                                                          ResidualBlock(128), ResidualBlock(128)));
  up = register_module(
      "up", nn::Sequential(ConvLayer(128, 64, 3, 1, 2), instance_norm(64), nn::ReLU(), ConvLayer(64, 32, 3, 1, 2),
                           instance_norm(32), nn::ReLU(), ConvLayer(32, 3, 9, 1)));
}

torch::Tensor TransformerNetImpl::forward(const torch::Tensor& x) {
  return up->forward(residuals->forward(down->forward(x)));
}

}  // namespace milabench
