// fast_style: the original's milarun.models.neural_style:main — pytorch/
// examples' fast neural style training: a TransformerNet (models/
// transformer_net.hpp) learns to restyle fake_imagenet's train split
// (Resize + CenterCrop(--image-size), pixel values 0..255, not shuffled, as
// the original's DataLoader) against a VGG16 perceptual loss: content = MSE of
// relu2_2 activations x --content-weight, style = sum over relu1_2..relu4_3 of
// the MSE between Gram matrices and the style image's x --style-weight; Adam.
// Each timed block fetches a batch, trains, reads the loss (total_loss.item()
// every step, as the original); device sync at slice ends. Counts the images
// in the batch (the original's len(x)). Deviations: VGG16 has random weights (no pretrained download)
// and the default style image is generated (stripes) unless --style-image
// names a JPEG; model.parameters counts the TransformerNet and the whole VGG16
// with its classifier, which the loss does not run.
#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

#include "data/center_crop_transforms.hpp"
#include "data/jpeg.hpp"
#include "models/transformer_net.hpp"
#include "models/vgg.hpp"
#include "training/image_input.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

constexpr int kGeneratedStyleSide = 256;  // when neither --style-image nor --style-size is given

// utils.normalize_batch: 0..255 -> ImageNet-normalised.
torch::Tensor normalize_batch(const torch::Tensor& x) {
  auto mean = torch::tensor({0.485f, 0.456f, 0.406f}, x.options()).view({1, 3, 1, 1});
  auto std = torch::tensor({0.229f, 0.224f, 0.225f}, x.options()).view({1, 3, 1, 1});
  return (x / 255.0 - mean) / std;
}

// utils.gram_matrix: [B, C, H, W] -> [B, C, C] / (C * H * W).
torch::Tensor gram_matrix(const torch::Tensor& y) {
  const int64_t b = y.size(0), c = y.size(1), hw = y.size(2) * y.size(3);
  auto f = y.reshape({b, c, hw});
  return torch::bmm(f, f.transpose(1, 2)) / double(c * hw);
}

// The style image [1, 3, S, S], values 0..255: the JPEG at `path` resized to
// `size` x `size` (utils.load_image; its own size when size <= 0), or
// diagonal colour stripes of side `size` (256 when unset) when path is empty.
torch::Tensor load_style(const std::string& path, int size) {
  if (path.empty()) {
    const int64_t s = size > 0 ? size : kGeneratedStyleSide;
    auto yy = torch::arange(s, torch::kFloat32).view({s, 1}), xx = torch::arange(s, torch::kFloat32).view({1, s});
    std::vector<torch::Tensor> channels;
    for (int c = 0; c < 3; ++c) {
      const double a = 0.7 + 1.1 * c;
      channels.push_back(127.5 * (1 + torch::sin(0.15 * (xx * std::cos(a) + yy * std::sin(a)))));
    }
    return torch::stack(channels).unsqueeze(0);
  }
  std::vector<uint8_t> bytes;
  std::string error;
  JpegCodec codec;
  RgbImage img;
  if (!read_file_bytes(path, &bytes, &error) || !codec.decode(bytes.data(), bytes.size(), {1, 1}, &img, &error))
    throw std::runtime_error("--style-image " + path + ": " + error + " (give a readable JPEG)");
  const int w = size > 0 ? size : img.width, h = size > 0 ? size : img.height;
  std::vector<uint8_t> resized(size_t(w) * h * 3);
  resize_region(img, img.width, img.height, {0, 0, img.width, img.height}, w, h, resized.data());
  auto hwc = torch::from_blob(resized.data(), {h, w, 3}, torch::kUInt8);
  return hwc.permute({2, 0, 1}).unsqueeze(0).to(torch::kFloat32);  // copies out of `resized`
}

class FastStyleWorkload : public Workload {
 public:
  FastStyleWorkload() {
    input_.batch_size = 64;
    input_.image_size = 256;
  }

  void add_options(CLI::App& app) override {
    add_image_input_options(app, input_);
    app.add_option("--style-image", style_image_, "style JPEG (default: generated stripes)");
    app.add_option("--style-size", style_size_, "side the style image is resized to (default: its own size)");
    app.add_option("--content-weight", content_weight_, "weight of the content loss")->capture_default_str();
    app.add_option("--style-weight", style_weight_, "weight of the style loss")->capture_default_str();
    app.add_option("--lr", lr_, "Adam learning rate")->capture_default_str();
  }

  void run(Session& s) override {
    if (style_size_ < 0) throw std::invalid_argument("--style-size must be > 0");
    const torch::Device dev = s.device();
    ResizeCenterCrop::Options t;
    t.size = input_.image_size;
    t.decode = input_.decode();
    t.mean = {0.f, 0.f, 0.f};  // ToTensor then x255
    t.std = {1.f / 255, 1.f / 255, 1.f / 255};
    ImageInput input(s, input_, std::make_shared<ResizeCenterCrop>(t), /*shuffle=*/false);

    TransformerNet transformer;
    Vgg16 vgg;
    for (auto& p : vgg->parameters()) p.set_requires_grad(false);
    transformer->to(dev);
    vgg->to(dev);
    const int64_t trained = count_parameters(*transformer), vgg_params = count_parameters(*vgg);
    s.set_model_parameters(trained + vgg_params);
    s.set_metric("transformer_parameters", trained);
    s.set_metric("vgg16_parameters", vgg_params);
    s.set_metric("vgg16_weights", "random (not pretrained)");

    std::array<torch::Tensor, 4> gram_style;
    {
      torch::NoGradGuard no_grad;
      auto style_features = vgg->style_features(normalize_batch(load_style(style_image_, style_size_).to(dev)));
      for (size_t i = 0; i < gram_style.size(); ++i) gram_style[i] = gram_matrix(style_features[i]);
    }
    torch::optim::Adam opt(transformer->parameters(), torch::optim::AdamOptions(lr_));
    transformer->train();
    while (true) {
      s.begin();
      torch::Tensor x = input.next().first;  // [B, 3, S, S], 0..255
      const int64_t n = x.size(0);
      opt.zero_grad();
      auto features_y = vgg->style_features(normalize_batch(transformer->forward(x)));
      torch::Tensor content_target;
      {
        torch::NoGradGuard no_grad;
        content_target = vgg->style_features(normalize_batch(x))[1];  // relu2_2
      }
      auto content_loss = content_weight_ * torch::mse_loss(features_y[1], content_target);
      torch::Tensor style_loss;
      for (size_t i = 0; i < gram_style.size(); ++i) {
        auto gm_y = gram_matrix(features_y[i]);
        auto term = torch::mse_loss(gm_y, gram_style[i].expand_as(gm_y));
        style_loss = style_loss.defined() ? style_loss + term : term;
      }
      auto total = content_loss + style_weight_ * style_loss;
      total.backward();
      s.set_metric("loss", total.item<double>());  // it.log(loss=total_loss.item()), every step
      opt.step();
      if (!s.step(n, total.detach())) return;
    }
  }

 private:
  ImageInputOptions input_;
  std::string style_image_;
  int style_size_ = 0;  // 0: the style image's own size (the original's None)
  double content_weight_ = 1e5, style_weight_ = 1e10, lr_ = 1e-3;
};

}  // namespace

std::unique_ptr<Workload> make_fast_style() { return std::make_unique<FastStyleWorkload>(); }

}  // namespace milabench
