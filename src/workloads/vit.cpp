// vit: ViT-B/16 (models/vit.hpp) trained on images generated once on the
// device and normalised there: no loader and no host-to-device copy per step,
// so the rate measures the model (issue 25). The pool: --pool-batches
// batches of B images, each the low-resolution template of its class
// (upsampled, shared by the class) mixed with per-image noise, in [0, 1],
// then normalised with ImageNet's mean and std; labels cycle through the
// classes in a seeded order. Steps take the pool's batches in turn, so the
// model can learn (the loss canary needs a loss that falls). One step:
// AdamWTrainer (training/transformer_training.hpp): cross-entropy of the
// logits under bf16 autocast on CUDA (float32 on the CPU), AdamW, clip 1.0,
// then the loss and the norm read on the host. Count unit: images, B per step.
// Beside the rate: MFU (vit_flops_per_image over the device's dense bf16
// peak), peak memory, and the loss canary (a failure is a FAIL of kind
// bad_result).
#include "models/vit.hpp"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

#include "training/session.hpp"
#include "training/transformer_training.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

// The pool's images [pool, 3, H, W] (normalised) and labels [pool], made on
// `device` from torch's default generators (seeded by the harness). The
// labels and class templates are every rank's; the noise is drawn after
// ranks.seed_rank_data (each rank its own).
std::pair<torch::Tensor, torch::Tensor> device_image_pool(const VitConfig& c, int64_t pool, torch::Device device,
                                                          const DataParallelRun& ranks, int64_t seed) {
  auto f32 = torch::TensorOptions().dtype(torch::kFloat).device(device);
  torch::NoGradGuard ng;
  auto labels = torch::randperm(pool, torch::TensorOptions().dtype(torch::kLong).device(device)).remainder(c.classes);
  const int64_t grid = std::max<int64_t>(1, c.image_size / c.patch_size / 2);
  auto templates = torch::nn::functional::interpolate(torch::rand({c.classes, 3, grid, grid}, f32),
                                                      torch::nn::functional::InterpolateFuncOptions()
                                                          .size(std::vector<int64_t>{c.image_size, c.image_size})
                                                          .mode(torch::kNearest));
  ranks.seed_rank_data(seed);
  auto images =
      (0.6 * templates.index_select(0, labels) + 0.4 * torch::rand({pool, 3, c.image_size, c.image_size}, f32));
  auto mean = torch::tensor({0.485, 0.456, 0.406}, f32).view({1, 3, 1, 1});
  auto std = torch::tensor({0.229, 0.224, 0.225}, f32).view({1, 3, 1, 1});
  return {((images - mean) / std).contiguous(), labels};
}

class VitWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--batch-size", batch_, "images per step (B)")->capture_default_str();
    app.add_option("--image-size", cfg_.image_size, "image height and width")->capture_default_str();
    app.add_option("--patch-size", cfg_.patch_size, "patch height and width")->capture_default_str();
    app.add_option("--dim", cfg_.dim, "channels (D)")->capture_default_str();
    app.add_option("--depth", cfg_.depth, "encoder blocks")->capture_default_str();
    app.add_option("--heads", cfg_.heads, "attention heads")->capture_default_str();
    app.add_option("--mlp-dim", cfg_.mlp_dim, "MLP hidden channels")->capture_default_str();
    app.add_option("--classes", cfg_.classes, "classes of the head")->capture_default_str();
    app.add_option("--pool-batches", pool_batches_, "batches of generated images, taken in turn")
        ->capture_default_str();
    add_training_options(app, t_);
  }

  void run(Session& s) override {
    if (std::string why = cfg_.problem(); !why.empty()) throw std::invalid_argument("vit: " + why);
    if (batch_ < 1 || pool_batches_ < 1)
      throw std::invalid_argument("vit: --batch-size and --pool-batches must be >= 1");
    DataParallelRun ranks(s, t_.ranks, "vit");
    const bool cuda = ranks.device().is_cuda();
    auto [images, labels] = device_image_pool(cfg_, pool_batches_ * batch_, ranks.device(), ranks, s.seed());
    s.set_dataset({{"name", "device_images"},
                   {"synthetic", true},
                   {"images", pool_batches_ * batch_},
                   {"classes", cfg_.classes},
                   {"image_size", cfg_.image_size}});

    Vit model(cfg_);
    model->to(ranks.device());
    s.set_model(*model);
    record_transformer_setup(s, cuda,
                             {{"image_size", cfg_.image_size},
                              {"patch_size", cfg_.patch_size},
                              {"dim", cfg_.dim},
                              {"depth", cfg_.depth},
                              {"heads", cfg_.heads},
                              {"mlp_dim", cfg_.mlp_dim},
                              {"classes", cfg_.classes},
                              {"batch_size", batch_}});

    MeasuredSteps m = t_.measured(cfg_.classes, batch_);
    ranks.attach(model->parameters(), m.units_per_step);
    m.ranks = &ranks;
    AdamWTrainer trainer(*model, t_.h, cuda, &ranks);
    m.flops_per_unit = vit_flops_per_image(*model);
    m.mfu_formula =
        "6 x patch-embedding parameters x patches + 6 x block parameters x tokens + 6 x head parameters + "
        "12 L S^2 D per image, images/s of the steps after the warm-up, over the dense bf16 peak";
    run_measured_steps(s, m, [&](int64_t step) {
      const int64_t at = (step % pool_batches_) * batch_;
      auto x = images.slice(0, at, at + batch_), y = labels.slice(0, at, at + batch_);
      return trainer.step([&] { return torch::nn::functional::cross_entropy(model->forward(x), y); }, step);
    });
  }

 private:
  int64_t batch_ = 256, pool_batches_ = 4;
  VitConfig cfg_ = VitConfig::b16();
  // lr: DeiT's AdamW rule, 5e-4 x B / 512, at B 256; wd, betas, clip and
  // warm-up: the 2026 profile's common rules. The canary's 0.5 x ln(classes)
  // after 200 steps is calibrated on the tiny config (docs/fidelity.md, vit).
  TrainingOptions t_{AdamWHyper{2.5e-4, 10, 0.1, 1.0, 0.9, 0.95, 1e-8}, 0.5, 200};
};

}  // namespace

std::unique_ptr<Workload> make_vit() { return std::make_unique<VitWorkload>(); }

}  // namespace milabench
