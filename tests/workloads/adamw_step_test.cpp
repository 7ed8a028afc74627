// AdamWStep (training/adamw_step.hpp): the fused update over
// torch::optim::AdamW's own state gives what torch's per-parameter AdamW
// gives, across learning-rate changes, a parameter without a gradient and a
// checkpoint reload. Where libtorch has no fused kernel (1.13) a reference
// of the kernel's math stands in, so the state handling is checked on every
// build; the real kernel is checked on the CPU where libtorch has one
// (2.4+) and on a GPU (AdamWStepCuda).
#include "training/adamw_step.hpp"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "compat/torch_compat.hpp"
#include "test_support.hpp"

using namespace milabench;

namespace {

// PyTorch's AdamW per tensor, in the fused kernel's signature: decoupled
// decay, moments, bias corrections from each tensor's step count.
void reference_kernel(at::TensorList p, at::TensorList g, at::TensorList m, at::TensorList v, at::TensorList steps,
                      double lr, double b1, double b2, double wd, double eps) {
  for (size_t i = 0; i < p.size(); ++i) {
    const double step = steps[i].item<double>();
    p[i].mul_(1 - lr * wd);
    m[i].mul_(b1).add_(g[i], 1 - b1);
    v[i].mul_(b2).addcmul_(g[i], g[i], 1 - b2);
    const double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
    p[i].addcdiv_(m[i], (v[i].sqrt() / std::sqrt(bc2)).add_(eps), -lr / bc1);
  }
}

// Three parameters in llm.c's two groups: a decayed matrix, an undecayed
// bias, and a decayed matrix that never gets a gradient.
struct Params {
  torch::Tensor w, b, unused;
  explicit Params(const torch::Device& d) {
    torch::manual_seed(3);
    w = torch::randn({5, 4}).to(d).requires_grad_(true);
    b = torch::randn({5}).to(d).requires_grad_(true);
    unused = torch::randn({2, 2}).to(d).requires_grad_(true);
  }
  Params(const Params& o, int)
      : w(o.w.detach().clone().requires_grad_(true)),
        b(o.b.detach().clone().requires_grad_(true)),
        unused(o.unused.detach().clone().requires_grad_(true)) {}
};

std::unique_ptr<torch::optim::AdamW> adamw(Params& p) {
  auto opts = [](double wd) {
    return std::make_unique<torch::optim::AdamWOptions>(
        torch::optim::AdamWOptions(1e-2).betas({0.9, 0.95}).eps(1e-8).weight_decay(wd));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{p.w, p.unused}, opts(0.1));
  groups.emplace_back(std::vector<torch::Tensor>{p.b}, opts(0.0));
  return std::make_unique<torch::optim::AdamW>(std::move(groups), torch::optim::AdamWOptions(1e-2));
}

// Step k's gradients (the same on both sides) and learning rate (a warm-up).
void set_step(Params& p, torch::optim::AdamW& opt, int k) {
  torch::NoGradGuard ng;
  p.w.mutable_grad() = torch::sin(torch::arange(20, p.w.options().requires_grad(false)) * (k + 1)).view({5, 4});
  p.b.mutable_grad() = torch::cos(torch::arange(5, p.b.options().requires_grad(false)) * (k + 2));
  for (auto& g : opt.param_groups())
    static_cast<torch::optim::AdamWOptions&>(g.options()).lr(1e-2 * std::min(1.0, (k + 1) / 3.0));
}

double max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.detach().cpu() - b.detach().cpu()).abs().max().item<double>();
}

// Six steps through `kernel` (a checkpoint save and reload after the third)
// against six of torch's AdamW; returns the largest parameter difference.
double fused_against_torch(const torch::Device& d, const FusedAdamWKernel& kernel) {
  Params ref(d), fused(ref, 0);
  auto ref_opt = adamw(ref), fused_opt = adamw(fused);
  auto fused_step = std::make_unique<AdamWStep>(*fused_opt, AdamWKernel::fused, d, kernel);
  for (int k = 0; k < 6; ++k) {
    set_step(ref, *ref_opt, k);
    ref_opt->step();
    set_step(fused, *fused_opt, k);
    fused_step->step();
    if (k == 2) {  // checkpoint: parameters and optimizer state into new objects
      std::stringstream saved;
      torch::save(*fused_opt, saved);
      Params again(fused, 0);
      fused = again;
      fused_opt = adamw(fused);
      torch::load(*fused_opt, saved);
      fused_step = std::make_unique<AdamWStep>(*fused_opt, AdamWKernel::fused, d, kernel);
    }
  }
  EXPECT_TRUE(torch::equal(fused.unused.detach().cpu(), ref.unused.detach().cpu()));  // no gradient: untouched
  auto& st = static_cast<torch::optim::AdamWParamState&>(*fused_opt->state().begin()->second);
  EXPECT_EQ(st.step(), 6);
  EXPECT_EQ(fused_opt->state().size(), 2u);  // no state for the parameter without a gradient
  return std::max(max_diff(ref.w, fused.w), max_diff(ref.b, fused.b));
}

}  // namespace

TEST(AdamWStep, FusedUpdateOverTorchsStateMatchesTorchsAdamWThroughACheckpoint) {
  const double d = fused_against_torch(torch::kCPU, reference_kernel);
  EXPECT_LT(d, 1e-6) << "largest parameter difference " << d;
}

TEST(AdamWStep, LoopIsTorchsAdamWAndTheDefaultOnTheCpu) {
  EXPECT_EQ(default_adamw_kernel(torch::kCPU), AdamWKernel::loop);
  Params a(torch::kCPU), b(a, 0);
  auto opt_a = adamw(a), opt_b = adamw(b);
  AdamWStep step_b(*opt_b, AdamWKernel::loop, torch::kCPU);
  for (int k = 0; k < 4; ++k) {
    set_step(a, *opt_a, k);
    opt_a->step();
    set_step(b, *opt_b, k);
    step_b.step();
  }
  EXPECT_TRUE(torch::equal(a.w, b.w) && torch::equal(a.b, b.b));  // bit for bit
}

TEST(AdamWStep, LibtorchsFusedKernelMatchesWhereItHasOneForTheCpu) {
  if (!compat::has_fused_adamw(c10::DeviceType::CPU)) {
    Params p(torch::kCPU);
    auto opt = adamw(p);
    EXPECT_THROW(AdamWStep(*opt, AdamWKernel::fused, torch::kCPU), std::invalid_argument);
    GTEST_SKIP() << "skipped: libtorch " << compat::torch_version()
                 << " has no fused AdamW for the CPU (refusal checked)";
  }
  const double d = fused_against_torch(torch::kCPU, {});
  EXPECT_LT(d, 1e-5) << "largest parameter difference " << d;
}

TEST(AdamWStepCuda, FusedIsTheDefaultOnCudaWhereLibtorchHasItAndMatchesTheLoop) {
  const bool has = compat::has_fused_adamw(c10::DeviceType::CUDA);
  EXPECT_EQ(default_adamw_kernel(torch::Device(torch::kCUDA)), has ? AdamWKernel::fused : AdamWKernel::loop);
  EXPECT_NE(adamw_kernel_name(AdamWKernel::fused), adamw_kernel_name(AdamWKernel::loop));
  CUDA_PART();
  if (!has) GTEST_SKIP() << "skipped: libtorch " << compat::torch_version() << " has no fused AdamW";
  const double d = fused_against_torch(torch::Device(torch::kCUDA), {});
  EXPECT_LT(d, 1e-5) << "largest parameter difference " << d;
}
