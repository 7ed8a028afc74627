// The actor-critic of pytorch-a2c-ppo-acktr (model.py: Policy with CNNBase and
// a Categorical head) for 4x84x84 frame stacks: conv 8x8/4 32, 4x4/2 64,
// 3x3/1 32, fc 512 (ReLU), critic Linear(512, 1), actor Linear(512, actions).
// Orthogonal init as the original: gain sqrt(2) for the trunk, 1 for the
// critic, 0.01 for the action head; zero biases. Non-recurrent.
#pragma once
#include <torch/torch.h>

namespace milabench {

struct AtariOutput {
  torch::Tensor logits;  // [B, actions], log-softmax normalised
  torch::Tensor value;   // [B]
};

class AtariPolicyImpl : public torch::nn::Module {
 public:
  AtariPolicyImpl(int64_t in_channels, int64_t num_actions, int64_t hidden = 512);
  // obs: [B, C, 84, 84], uint8 or float in [0, 255] (divided by 255 here).
  AtariOutput forward(const torch::Tensor& obs);

 private:
  torch::nn::Sequential main{nullptr};
  torch::nn::Linear critic_linear{nullptr}, dist_linear{nullptr};
};
TORCH_MODULE(AtariPolicy);

}  // namespace milabench
