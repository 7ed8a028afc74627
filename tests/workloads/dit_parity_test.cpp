// dit against the reference of bench/python/dit_reference.py (PyTorch 1.13,
// CPU float32, the tiny config): our DDPM schedule against the reference's
// float64 one; with the reference's initial weights and its stored draws
// (x0, t, noise, labels and class-dropout per batch), our predicted noise,
// loss and every gradient, then the losses of 10 AdamW steps with the
// workload's hyper-parameters and clip; a checkpoint taken mid-way and
// reloaded continues with identical losses. The fixture lives in
// tests/fixtures/dit_tiny (regenerate: /usr/bin/python3 bench/python/dit_reference.py).
#include <gtest/gtest.h>

#include "models/dit.hpp"
#include "parity_fixture.hpp"

using namespace milabench;
using milabench::test::OneThread;

namespace {

struct Fixture : milabench::test::ParityFiles {
  std::vector<float> out0 = raw<float>("out0.f32"), x0 = raw<float>("x0.f32"), noise = raw<float>("noise.f32");
  std::vector<int32_t> t = raw<int32_t>("t.i32"), labels = raw<int32_t>("labels.i32"), drop = raw<int32_t>("drop.i32");
  std::vector<double> schedule = raw<double>("schedule.f64");
  Fixture() : ParityFiles("dit_tiny", "bench/python/dit_reference.py") {}

  DitConfig config() const {
    const auto& c = index["config"];
    DitConfig d;
    d.input_size = c["input_size"], d.patch_size = c["patch_size"], d.in_channels = c["in_channels"];
    d.dim = c["dim"], d.depth = c["depth"], d.heads = c["heads"], d.mlp_dim = c["mlp_dim"];
    d.classes = c["classes"], d.class_dropout = c["class_dropout"], d.frequency_dim = c["frequency_dim"];
    d.diffusion_steps = c["diffusion_steps"];
    return d;
  }
  Dit model() const {
    Dit m(config());
    load_weights(*m);
    return m;
  }
  AdamWHyper hyper() const {
    const auto& h = index["hyper"];
    return {h["lr"], h["warmup_steps"], h["weight_decay"], h["grad_clip"], h["betas"][0], h["betas"][1], h["eps"]};
  }
  int64_t batch_size() const { return index["batch_size"]; }
  // Batch k's [B, C, H, W] floats out of `all`.
  torch::Tensor images(const std::vector<float>& all, int64_t k) const {
    const DitConfig c = config();
    const int64_t B = batch_size(), H = c.input_size, n = B * c.in_channels * H * H;
    return torch::from_blob(const_cast<float*>(all.data()) + k * n, {B, c.in_channels, H, H}).clone();
  }
  // Batch k's [B] integers out of `all`, as int64.
  torch::Tensor ints(const std::vector<int32_t>& all, int64_t k) const {
    const int64_t B = batch_size();
    return torch::from_blob(const_cast<int32_t*>(all.data()) + k * B, {B}, torch::kInt).to(torch::kLong);
  }
  // Batch k's loss through the workload's path (token_drop, q_sample, dit_loss).
  torch::Tensor loss(Dit& m, const DdpmSchedule& d, int64_t k, torch::Tensor* out = nullptr) const {
    auto x = images(x0, k), n = images(noise, k), tk = ints(t, k);
    auto y = m->token_drop(ints(labels, k), ints(drop, k).to(torch::kBool));
    if (out) *out = m->forward(d.q_sample(x, tk, n), tk, y);
    return dit_loss(*m, d, x, tk, y, n);
  }
};

}  // namespace

TEST(DitParity, TheDdpmScheduleMatchesTheReferencesFloat64One) {
  Fixture f;
  DdpmSchedule d(f.config().diffusion_steps, torch::kCPU);
  const int64_t T = f.config().diffusion_steps;
  ASSERT_EQ(f.schedule.size(), size_t(2 * T));
  auto ref = torch::from_blob(f.schedule.data(), {2, T}, torch::kDouble);
  auto ours = torch::stack({d.sqrt_alphas_cumprod, d.sqrt_one_minus_alphas_cumprod});
  const double diff = milabench::test::rel_diff(ours, ref);
  std::cout << "schedule: max relative difference " << diff << "\n";
  EXPECT_LT(diff, 1e-14);
}

TEST(DitParity, OutputLossAndEveryGradientMatchTheReference) {
  OneThread one;
  Fixture f;
  Dit m = f.model();
  DdpmSchedule d(f.config().diffusion_steps, torch::kCPU);
  torch::Tensor out;
  auto loss = f.loss(m, d, 0, &out);
  loss.backward();
  f.expect_logits_and_loss(out, f.out0, loss, 1e-5);
  f.expect_gradients(*m, 1e-5);
}

TEST(DitParity, TenAdamWStepsMatchAndACheckpointResumesIdentically) {
  OneThread one;
  Fixture f;
  // The workload's defaults are the reference's hyper-parameters.
  EXPECT_EQ(f.hyper().lr, 1e-4);
  DdpmSchedule d(f.config().diffusion_steps, torch::kCPU);
  milabench::test::expect_adamw_losses_and_resume(
      f, f.hyper(), 1e-5, f.model(), [&] { return Dit(f.config()); },
      [&](Dit& m, int64_t k) { return f.loss(m, d, k); });
}
