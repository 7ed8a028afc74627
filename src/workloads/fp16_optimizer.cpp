#include "workloads/fp16_optimizer.hpp"

#include <ATen/autocast_mode.h>

#include <algorithm>
#include <cmath>

namespace milabench {

bool DynamicLossScale::update(bool overflow) {
  if (overflow) {
    scale_ = std::max(1.0, scale_ / factor_);
    good_in_a_row_ = 0;
    ++skipped_;
    return false;
  }
  if (++good_in_a_row_ % window_ == 0) scale_ *= factor_;
  return true;
}

void model_to_half_keep_batchnorm(torch::nn::Module& model) {
  model.to(torch::kFloat16);
  for (auto& m : model.modules(/*include_self=*/true)) {
    if (m->as<torch::nn::BatchNorm1d>() || m->as<torch::nn::BatchNorm2d>() || m->as<torch::nn::BatchNorm3d>())
      m->to(torch::kFloat32);
  }
}

Fp16MasterWeights::Fp16MasterWeights(std::vector<torch::Tensor> model_params) : model_(std::move(model_params)) {
  torch::NoGradGuard no_grad;
  for (const auto& p : model_) masters_.push_back(p.detach().to(torch::kFloat32).clone().requires_grad_(true));
}

void Fp16MasterWeights::backward(const torch::Tensor& loss) { (loss.to(torch::kFloat32) * scale_.scale()).backward(); }

bool Fp16MasterWeights::unscale_and_check() {
  torch::NoGradGuard no_grad;
  const double inv = 1.0 / scale_.scale();
  std::vector<torch::Tensor> sums;
  for (size_t i = 0; i < model_.size(); ++i) {
    const auto& g = model_[i].grad();
    if (!g.defined()) {
      masters_[i].mutable_grad() = torch::Tensor();
      continue;
    }
    auto mg = g.to(torch::kFloat32).mul_(inv);
    sums.push_back(mg.sum());
    masters_[i].mutable_grad() = mg;
  }
  // inf or nan anywhere makes the total non-finite: one read-back per step.
  const bool overflow = !sums.empty() && !std::isfinite(torch::stack(sums).sum().item<double>());
  return scale_.update(overflow);
}

void Fp16MasterWeights::copy_to_model() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < model_.size(); ++i) model_[i].copy_(masters_[i]);
}

void Fp16MasterWeights::zero_model_grads() {
  for (auto& p : model_)
    if (p.grad().defined()) p.mutable_grad() = torch::Tensor();
}

AutocastCpuScope::AutocastCpuScope() : previous_(at::autocast::is_cpu_enabled()) {
  at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
  at::autocast::set_cpu_enabled(true);
  at::autocast::increment_nesting();
}

AutocastCpuScope::~AutocastCpuScope() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_cpu_enabled(previous_);
}

}  // namespace milabench
