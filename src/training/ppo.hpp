// Pieces of PPO shared by the minigrid (BabyAI PPOAlgo) and atari
// (pytorch-a2c-ppo-acktr PPO) workloads. Shapes: T rollout steps, N envs.
#pragma once
#include <torch/torch.h>

namespace milabench {

struct Advantages {
  torch::Tensor advantages;  // [T, N]
  torch::Tensor returns;     // [T, N] = advantages + values
};

// Generalised advantage estimation. rewards, values: [T, N]; next_value: [N]
// (the value of the state after the last step); not_done: [T, N], 0 where the
// episode ended at step t (no bootstrapping across it). lambda = 1 gives
// discounted returns minus values.
Advantages gae(const torch::Tensor& rewards, const torch::Tensor& values, const torch::Tensor& next_value,
               const torch::Tensor& not_done, double gamma, double lambda);

// Sampling and scoring with a categorical policy given log-softmax logits [B, A].
torch::Tensor sample_actions(const torch::Tensor& logits);                          // [B] int64
torch::Tensor log_prob(const torch::Tensor& logits, const torch::Tensor& actions);  // [B]
torch::Tensor entropy(const torch::Tensor& logits);                                 // [B]

struct PpoTerms {
  torch::Tensor policy_loss;  // -mean(min(r A, clip(r, 1-eps, 1+eps) A))
  torch::Tensor value_loss;   // mean(max((v - R)^2, (v_old + clip(v - v_old, -eps, eps) - R)^2))
  torch::Tensor entropy;      // mean entropy
};
// The clipped surrogate and clipped value losses over one minibatch.
PpoTerms ppo_terms(const torch::Tensor& logits, const torch::Tensor& actions, const torch::Tensor& old_log_prob,
                   const torch::Tensor& advantages, const torch::Tensor& value, const torch::Tensor& old_value,
                   const torch::Tensor& returns, double clip);

// Sets the learning rate of every parameter group.
void set_learning_rate(torch::optim::Optimizer& opt, double lr);

}  // namespace milabench
