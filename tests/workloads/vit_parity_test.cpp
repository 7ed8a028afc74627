// vit against the reference of bench/python/vit_reference.py (PyTorch 1.13,
// CPU float32, the tiny config): with the reference's initial weights, our
// logits, loss and every gradient, then the losses of 10 AdamW steps with the
// workload's hyper-parameters and clip; a checkpoint taken mid-way and
// reloaded continues with identical losses. The fixture lives in
// tests/fixtures/vit_tiny (regenerate: /usr/bin/python3 bench/python/vit_reference.py).
#include <gtest/gtest.h>

#include "models/vit.hpp"
#include "parity_fixture.hpp"

using namespace milabench;
using milabench::test::OneThread;

namespace {

struct Fixture : milabench::test::ParityFiles {
  std::vector<float> logits0 = raw<float>("logits0.f32"), images = raw<float>("images.f32");
  std::vector<int32_t> labels = raw<int32_t>("labels.i32");
  Fixture() : ParityFiles("vit_tiny", "bench/python/vit_reference.py") {}

  VitConfig config() const {
    const auto& c = index["config"];
    VitConfig v;
    v.image_size = c["image_size"], v.patch_size = c["patch_size"], v.dim = c["dim"], v.depth = c["depth"];
    v.heads = c["heads"], v.mlp_dim = c["mlp_dim"], v.classes = c["classes"];
    return v;
  }
  Vit model() const {
    Vit m(config());
    load_weights(*m);
    return m;
  }
  AdamWHyper hyper() const {
    const auto& h = index["hyper"];
    return {h["lr"], h["warmup_steps"], h["weight_decay"], h["grad_clip"], h["betas"][0], h["betas"][1], h["eps"]};
  }
  // Batch k's images [B, 3, H, W] and labels [B].
  std::pair<torch::Tensor, torch::Tensor> batch(int64_t k) const {
    const int64_t B = index["batch_size"], H = index["config"]["image_size"], n = B * 3 * H * H;
    auto x = torch::from_blob(const_cast<float*>(images.data()) + k * n, {B, 3, H, H}).clone();
    auto y = torch::from_blob(const_cast<int32_t*>(labels.data()) + k * B, {B}, torch::kInt).to(torch::kLong);
    return {x, y};
  }
};

torch::Tensor loss_of(Vit& m, const std::pair<torch::Tensor, torch::Tensor>& b) {
  return torch::nn::functional::cross_entropy(m->forward(b.first), b.second);
}

}  // namespace

TEST(VitParity, LogitsLossAndEveryGradientMatchTheReference) {
  OneThread one;
  Fixture f;
  Vit m = f.model();
  auto [x, y] = f.batch(0);
  auto logits = m->forward(x);
  auto loss = torch::nn::functional::cross_entropy(logits, y);
  loss.backward();
  f.expect_logits_and_loss(logits, f.logits0, loss, 1e-5);
  f.expect_gradients(*m, 1e-5);
}

TEST(VitParity, TenAdamWStepsMatchAndACheckpointResumesIdentically) {
  OneThread one;
  Fixture f;
  // The workload's defaults are the reference's hyper-parameters.
  EXPECT_EQ(f.hyper().lr, 2.5e-4);
  milabench::test::expect_adamw_losses_and_resume(
      f, f.hyper(), 1e-5, f.model(), [&] { return Vit(f.config()); },
      [&](Vit& m, int64_t k) { return loss_of(m, f.batch(k)); });
}
