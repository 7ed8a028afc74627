// GPT-2 as llm.c trains it (train_gpt2.py's GPT, train_gpt2.cu's layout):
// token + position embeddings, n_layer pre-LayerNorm blocks (causal
// self-attention with one fused qkv Linear, MLP 4x with tanh-approximate
// GELU), a final LayerNorm and an lm_head tied to the token embedding. The
// embedding has padded_vocab_size rows (50304 for d12, as llm.c's C code:
// a multiple of 128); logits are computed over all of them and the loss
// reads only the first vocab_size columns. Parameter names follow
// train_gpt2.py without its "transformer." prefix: wte.weight, wpe.weight,
// h.N.{ln_1,attn.c_attn,attn.c_proj,ln_2,mlp.c_fc,mlp.c_proj}.{weight,bias},
// ln_f.{weight,bias}.
#pragma once
#include <torch/torch.h>

#include <string>

namespace milabench {

struct Gpt2Config {
  int64_t n_layer = 12, n_embd = 768, n_head = 12;
  int64_t block_size = 1024;  // T, the longest sequence (wpe rows)
  int64_t vocab_size = 50257, padded_vocab_size = 50304;
  double init_std = 0.02;  // llm.c's; the residual projections get init_std / sqrt(2 n_layer)

  static Gpt2Config d12() { return {}; }
  static Gpt2Config tiny() { return {2, 64, 4, 64, 256, 256, 0.02}; }
  // Empty when consistent; else one line naming the first bad field.
  std::string problem() const;
};

class Gpt2BlockImpl : public torch::nn::Module {
 public:
  explicit Gpt2BlockImpl(const Gpt2Config& c);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  torch::nn::Linear c_attn{nullptr}, attn_proj{nullptr}, c_fc{nullptr}, mlp_proj{nullptr};

 private:
  torch::Tensor attention(const torch::Tensor& x);
  int64_t n_head_;
  torch::Tensor mask_;  // 1.13's math path: true above the diagonal (the future), built on first use
};
TORCH_MODULE(Gpt2Block);

class Gpt2Impl : public torch::nn::Module {
 public:
  explicit Gpt2Impl(const Gpt2Config& c);
  // idx: [B, T] int64 token ids (< vocab_size, T <= block_size) -> logits
  // [B, T, padded_vocab_size].
  torch::Tensor forward(const torch::Tensor& idx);
  // Mean cross-entropy of logits[..., :vocab_size] against targets [B, T].
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& targets) const;
  // llm.c's initialisation (train_gpt2.py GPT._init_weights): every Linear
  // and Embedding weight N(0, init_std), the two residual projections of each
  // block N(0, init_std / sqrt(2 n_layer)), biases 0, LayerNorm (1, 0); the
  // padded embedding rows [vocab_size, padded) are 0 (llm.c's C code pads
  // with zeros). Draws from torch's default generator.
  void init_weights();
  const Gpt2Config& config() const { return c_; }

  torch::nn::Embedding wte{nullptr}, wpe{nullptr};
  torch::nn::ModuleList h{nullptr};
  torch::nn::LayerNorm ln_f{nullptr};

 private:
  Gpt2Config c_;
};
TORCH_MODULE(Gpt2);

// Model FLOPs per trained token, llm.c's estimate (train_gpt2.cu
// gpt2_estimate_mfu, after the PaLM paper's appendix B): 6 N for the
// forward and backward matmuls with the weights, plus 6 L C T for attention
// (nanoGPT's 12 L C T halved: the causal mask skips half the scores).
// N = every parameter (tied head counted once, wpe and padded rows included).
double gpt2_flops_per_token(const Gpt2Config& c, int64_t parameters);

}  // namespace milabench
