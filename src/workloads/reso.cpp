// reso: the original's milarun.models.subpixel:main — sub-pixel convolution
// super-resolution (models/subpixel.hpp) on BSDS500's train split: the luma
// of a 256x256 centre crop (rounded down to a multiple of --upscale-factor) is
// the target, that crop resized by 1/r the input; MSE, Adam (lr 0.1 as the
// profiles), shuffled. Each timed block fetches a batch, trains, reads the loss
// (loss.item() every step, as the original); device sync at slice ends.
// Counts --batch-size per step, also for the epoch's short last batch (the
// original's it.set_count(batch_size): 200 images are counted 256 per epoch
// at batch 64).
#include <torch/torch.h>

#include "data/center_crop_transforms.hpp"
#include "models/subpixel.hpp"
#include "training/image_input.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

constexpr int kCrop = 256;  // the original's calculate_valid_crop_size(256, r)

class ResoWorkload : public Workload {
 public:
  ResoWorkload() {
    input_.dataset = "milarun.datasets:bsds500_reso";
    input_.batch_size = 64;
  }

  void add_options(CLI::App& app) override {
    add_image_input_options(app, input_, /*image_size_flag=*/false, /*reduced_decode_flag=*/false);
    app.add_option("--upscale-factor", upscale_, "super resolution upscale factor")->capture_default_str();
    app.add_option("--lr", lr_, "Adam learning rate")->capture_default_str();
    app.add_option("--crop-size", crop_, "centre crop side before downscaling (the original: 256, fixed)")
        ->capture_default_str();
  }

  void run(Session& s) override {
    SubPixelNet model(upscale_);  // throws on a bad --upscale-factor before any data is read
    auto transform = std::make_shared<LumaSuperResolutionPair>(crop_, int(upscale_));
    ImageInput input(s, input_, transform, /*shuffle=*/true);
    model->to(s.device());
    s.set_model(*model);
    model->train();
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr_));
    const int64_t lo = transform->low(), hi = transform->crop();
    while (true) {
      s.begin();
      torch::Tensor packed = input.next().first;  // [B, lo*lo + hi*hi]
      const int64_t n = packed.size(0);
      auto x = packed.narrow(1, 0, lo * lo).view({n, 1, lo, lo});
      auto target = packed.narrow(1, lo * lo, hi * hi).view({n, 1, hi, hi});
      opt.zero_grad();
      auto loss = torch::mse_loss(model->forward(x), target);
      s.set_metric("loss", loss.item<double>());  // it.log(loss=loss.item()), every step
      loss.backward();
      opt.step();
      if (!s.step(input_.batch_size, loss.detach())) return;
    }
  }

 private:
  ImageInputOptions input_;
  int64_t upscale_ = 2;
  int crop_ = kCrop;
  double lr_ = 0.1;
};

}  // namespace

std::unique_ptr<Workload> make_reso() { return std::make_unique<ResoWorkload>(); }

}  // namespace milabench
