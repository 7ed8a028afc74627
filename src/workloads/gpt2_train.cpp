#include "workloads/gpt2_train.hpp"

#include "workloads/mixed_precision.hpp"

namespace milabench {

Gpt2Trainer::Gpt2Trainer(Gpt2 model, const Gpt2Hyper& h, bool bf16_autocast)
    : model_(std::move(model)), h_(h), bf16_(bf16_autocast), params_(model_->parameters()) {
  auto options = [&](double wd) {
    return std::make_unique<torch::optim::AdamWOptions>(
        torch::optim::AdamWOptions(h_.lr).betas({h_.beta1, h_.beta2}).eps(h_.eps).weight_decay(wd));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(model_->decay_params(), options(h_.weight_decay));
  groups.emplace_back(model_->no_decay_params(), options(0.0));
  opt_ = std::make_unique<torch::optim::AdamW>(std::move(groups), torch::optim::AdamWOptions(h_.lr));
}

double Gpt2Trainer::lr_at(int64_t step) const {
  if (step < h_.warmup_steps) return h_.lr * double(step + 1) / double(h_.warmup_steps);
  return h_.lr;
}

std::pair<torch::Tensor, double> Gpt2Trainer::step(const torch::Tensor& x, const torch::Tensor& y, int64_t step) {
  for (auto& p : params_) p.mutable_grad() = torch::Tensor();  // zero_grad(set_to_none=True)
  torch::Tensor loss;
  {
    AutocastScope autocast(torch::kCUDA, torch::kBFloat16, bf16_);
    auto logits = model_->forward(x);
    loss = model_->loss(logits, y);
  }
  loss.backward();
  auto norm = clip_grad_norm(params_, h_.grad_clip);
  const double lr = lr_at(step);
  for (auto& g : opt_->param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
  opt_->step();
  const double lossf = loss.item<double>();
  norm_ = norm.item<double>();
  return {loss, lossf};
}

}  // namespace milabench
