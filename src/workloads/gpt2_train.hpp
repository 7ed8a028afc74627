// One training step of llm.c's train_gpt2.py for a Gpt2 model, shared by the
// gpt2 workload and its parity test: zero_grad(set_to_none), forward (bf16
// autocast on CUDA, the parameters stay float32: PyTorch AMP's master
// weights), mean cross-entropy over the real vocabulary, backward,
// clip_grad_norm_(grad_clip), the step's learning rate, AdamW, then the loss
// and the norm read on the host (the loop's `loss.item()` and printed norm).
#pragma once
#include <torch/torch.h>

#include <memory>
#include <utility>

#include "models/gpt2.hpp"

namespace milabench {

struct Gpt2Hyper {
  double lr = 6e-4;
  int64_t warmup_steps = 10;  // lr x (step+1) / warmup_steps before, lr after (train_gpt2.py get_lr)
  double weight_decay = 0.1;  // on 2-D parameters (weights, embeddings); 0 on biases and LayerNorm
  double grad_clip = 1.0;
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
};

class Gpt2Trainer {
 public:
  Gpt2Trainer(Gpt2 model, const Gpt2Hyper& h, bool bf16_autocast);
  // The learning rate of step `step` (0-based).
  double lr_at(int64_t step) const;
  // One step on inputs/targets [B, T]; returns the loss tensor and its value
  // read on the host.
  std::pair<torch::Tensor, double> step(const torch::Tensor& x, const torch::Tensor& y, int64_t step);
  double last_norm() const { return norm_; }
  torch::optim::AdamW& optimizer() { return *opt_; }

 private:
  Gpt2 model_;
  Gpt2Hyper h_;
  bool bf16_;
  std::vector<torch::Tensor> params_;
  std::unique_ptr<torch::optim::AdamW> opt_;
  double norm_ = 0;
};

}  // namespace milabench
