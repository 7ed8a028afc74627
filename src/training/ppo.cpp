#include "training/ppo.hpp"

namespace milabench {

Advantages gae(const torch::Tensor& rewards, const torch::Tensor& values, const torch::Tensor& next_value,
               const torch::Tensor& not_done, double gamma, double lambda) {
  const int64_t T = rewards.size(0);
  auto adv = torch::zeros_like(rewards);
  auto running = torch::zeros_like(next_value);
  auto next_v = next_value;
  for (int64_t t = T - 1; t >= 0; --t) {
    auto delta = rewards[t] + gamma * next_v * not_done[t] - values[t];
    running = delta + gamma * lambda * not_done[t] * running;
    adv[t] = running;
    next_v = values[t];
  }
  return {adv, adv + values};
}

torch::Tensor sample_actions(const torch::Tensor& logits) { return torch::multinomial(logits.exp(), 1).squeeze(1); }

torch::Tensor log_prob(const torch::Tensor& logits, const torch::Tensor& actions) {
  return logits.gather(1, actions.unsqueeze(1)).squeeze(1);
}

torch::Tensor entropy(const torch::Tensor& logits) { return -(logits.exp() * logits).sum(1); }

PpoTerms ppo_terms(const torch::Tensor& logits, const torch::Tensor& actions, const torch::Tensor& old_log_prob,
                   const torch::Tensor& advantages, const torch::Tensor& value, const torch::Tensor& old_value,
                   const torch::Tensor& returns, double clip) {
  auto ratio = torch::exp(log_prob(logits, actions) - old_log_prob);
  auto surr1 = ratio * advantages;
  auto surr2 = torch::clamp(ratio, 1.0 - clip, 1.0 + clip) * advantages;
  auto value_clipped = old_value + torch::clamp(value - old_value, -clip, clip);
  auto v1 = (value - returns).pow(2), v2 = (value_clipped - returns).pow(2);
  return {-torch::min(surr1, surr2).mean(), torch::max(v1, v2).mean(), entropy(logits).mean()};
}

void set_learning_rate(torch::optim::Optimizer& opt, double lr) {
  for (auto& g : opt.param_groups()) g.options().set_lr(lr);
}

}  // namespace milabench
