#include "training/mixed_precision.hpp"

#include <algorithm>
#include <cmath>

#include "compat/torch_compat.hpp"

namespace milabench {

AutocastScope::AutocastScope(c10::DeviceType device, at::ScalarType dtype, bool enabled)
    : device_(device), enabled_(enabled) {
  if (!enabled_) return;
  previous_enabled_ = compat::autocast_enabled(device_);
  previous_dtype_ = compat::autocast_dtype(device_);
  compat::set_autocast_dtype(device_, dtype);
  compat::set_autocast_enabled(device_, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!enabled_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  compat::set_autocast_enabled(device_, previous_enabled_);
  compat::set_autocast_dtype(device_, previous_dtype_);
}

LossScalePolicy LossScalePolicy::fixed(double scale) {
  LossScalePolicy p;
  p.init = scale;
  return p;
}

LossScalePolicy LossScalePolicy::apex_dynamic() {
  LossScalePolicy p;
  p.init = 65536.0;  // 2^16 (apex/amp/scaler.py:38-47)
  p.dynamic = true;
  p.backoff = 0.5, p.growth = 2.0, p.growth_interval = 2000;
  p.min_scale = 0.0, p.max_scale = 16777216.0;  // min_loss_scale=None, max 2^24
  p.read_each_gradient = true;                  // scale_check_overflow_python, no amp_C
  return p;
}

LossScalePolicy LossScalePolicy::gnmt_dynamic() {
  LossScalePolicy p;
  p.init = 8192.0;
  p.dynamic = true;
  p.backoff = 0.5, p.growth = 2.0, p.growth_interval = 2048;
  p.min_scale = 0.0, p.max_scale = 8192.0;
  return p;
}

LossScale::LossScale(const LossScalePolicy& policy) : policy_(policy), scale_(policy.init) {}

bool LossScale::update(bool overflow) {
  if (!policy_.dynamic) return true;
  if (overflow) {
    scale_ = std::max(policy_.min_scale, scale_ * policy_.backoff);
    clean_in_a_row_ = 0;
    ++skipped_;
    return false;
  }
  if (++clean_in_a_row_ % policy_.growth_interval == 0) scale_ = std::min(policy_.max_scale, scale_ * policy_.growth);
  return true;
}

torch::Tensor LossScaler::scale(const torch::Tensor& loss) const { return loss.to(torch::kFloat32) * scale_.scale(); }

// apex's scale_check_overflow_python: for each gradient, float(g.float().sum())
// read back; the first non-finite one ends the pass; else g *= 1/scale.
static bool unscale_reading_each(const std::vector<torch::Tensor>& params, double inv) {
  for (const auto& p : params) {
    auto g = p.grad();
    if (!g.defined()) continue;
    if (!std::isfinite(g.to(torch::kFloat32).sum().item<double>())) return true;
    if (inv != 1.0) g.mul_(inv);
  }
  return false;
}

bool LossScaler::unscale(const std::vector<torch::Tensor>& params) {
  torch::NoGradGuard no_grad;
  const double inv = 1.0 / scale_.scale();
  if (scale_.dynamic() && scale_.policy().read_each_gradient) return scale_.update(unscale_reading_each(params, inv));
  std::vector<torch::Tensor> sums;
  for (const auto& p : params) {
    auto g = p.grad();
    if (!g.defined()) continue;
    if (inv != 1.0) g.mul_(inv);
    if (scale_.dynamic()) sums.push_back(g.sum(torch::kFloat32));
  }
  if (!scale_.dynamic()) return scale_.update(false);
  // inf or NaN anywhere makes the total non-finite: one read-back per step.
  const bool overflow = !sums.empty() && !std::isfinite(torch::stack(sums).sum().item<double>());
  return scale_.update(overflow);
}

// apex's BN_convert_float: an affine BatchNorm goes back to float32.
template <typename Impl>
static bool affine_batchnorm(torch::nn::Module& m) {
  const auto* bn = m.as<Impl>();
  return bn && bn->options.affine();
}

void model_to_half_keep_batchnorm(torch::nn::Module& model) {
  model.to(torch::kFloat16);  // set_data: the same tensors, so an optimizer holding them sees float16
  for (auto& m : model.modules(/*include_self=*/true)) {
    if (affine_batchnorm<torch::nn::BatchNorm1dImpl>(*m) || affine_batchnorm<torch::nn::BatchNorm2dImpl>(*m) ||
        affine_batchnorm<torch::nn::BatchNorm3dImpl>(*m))
      m->to(torch::kFloat32);
  }
}

bool apex_fp16_step(torch::optim::Optimizer& opt, LossScaler& scaler, const std::vector<torch::Tensor>& params,
                    const torch::Tensor& loss) {
  opt.zero_grad();
  scaler.scale(loss).backward();
  if (!scaler.unscale(params)) return false;
  opt.step();
  return true;
}

Fp16MasterWeights::Fp16MasterWeights(std::vector<torch::Tensor> model_params, const LossScalePolicy& policy)
    : model_(std::move(model_params)), scaler_(policy) {
  torch::NoGradGuard no_grad;
  for (const auto& p : model_) masters_.push_back(p.detach().to(torch::kFloat32).clone().requires_grad_(true));
}

void Fp16MasterWeights::backward(const torch::Tensor& loss) {
  for (auto& p : model_)
    if (p.grad().defined()) p.mutable_grad() = torch::Tensor();
  scaler_.scale(loss).backward();
}

bool Fp16MasterWeights::unscale() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < model_.size(); ++i) {
    const auto& g = model_[i].grad();
    masters_[i].mutable_grad() = g.defined() ? g.to(torch::kFloat32) : torch::Tensor();
  }
  return scaler_.unscale(masters_);
}

void Fp16MasterWeights::copy_to_model() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < model_.size(); ++i) model_[i].copy_(masters_[i]);
}

torch::Tensor clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> norms;
  for (const auto& p : params)
    if (p.grad().defined()) norms.push_back(p.grad().norm(2).to(torch::kFloat32));
  if (norms.empty()) return torch::zeros({}, torch::kFloat32);
  auto total = torch::stack(norms).norm(2);
  auto coef = (max_norm / (total + 1e-6)).clamp_max(1.0);
  for (const auto& p : params)
    if (p.grad().defined()) p.grad().mul_(coef.to(p.grad().scalar_type()));
  return total;
}

}  // namespace milabench
