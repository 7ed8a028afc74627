// Llama 3 (Meta's reference model.py; HF transformers' LlamaForCausalLM) at
// Llama-3.2-1B's shape by default: token embedding, n_layer pre-RMSNorm
// blocks (grouped-query causal self-attention with rotate-half RoPE on q and
// k, SwiGLU MLP down(silu(gate(x)) * up(x))), a final RMSNorm and an lm_head
// tied to the embedding. No biases anywhere. Llama 3.2's "llama3" RoPE
// frequency scaling (factor 32, for contexts past 8 k) is not applied: at
// T <= 8192 it changes only the low frequencies (docs/fidelity.md). Parameter
// names are HF's without the "model." prefix: embed_tokens.weight,
// layers.N.input_layernorm.weight, layers.N.self_attn.{q,k,v,o}_proj.weight,
// layers.N.post_attention_layernorm.weight,
// layers.N.mlp.{gate,up,down}_proj.weight, norm.weight.
#pragma once
#include <torch/torch.h>

#include <string>

namespace milabench {

struct LlamaConfig {
  int64_t n_layer = 16, n_embd = 2048, n_head = 32, n_kv_head = 8;
  int64_t ffn_hidden = 8192;
  int64_t block_size = 2048;  // T, the longest sequence (the RoPE table)
  int64_t vocab_size = 128256;
  double norm_eps = 1e-5, rope_theta = 500000.0;
  double init_std = 0.02;  // HF initializer_range: every Linear and Embedding weight

  static LlamaConfig llama_3_2_1b() { return {}; }
  static LlamaConfig tiny() { return {2, 64, 4, 2, 192, 64, 256, 1e-5, 500000.0, 0.02}; }
  // Empty when consistent; else one line naming the first bad field.
  std::string problem() const;
};

// HF LlamaRMSNorm: x / sqrt(mean(x^2) + eps) computed in float32, cast back
// to x's dtype, times a learned gain (initialised to 1).
class RmsNormImpl : public torch::nn::Module {
 public:
  RmsNormImpl(int64_t dim, double eps);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight;

 private:
  double eps_;
};
TORCH_MODULE(RmsNorm);

class LlamaBlockImpl : public torch::nn::Module {
 public:
  explicit LlamaBlockImpl(const LlamaConfig& c);
  // x: [B, T, C]; cos, sin: [T, head size] in x's compute dtype.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);
  RmsNorm input_layernorm{nullptr}, post_attention_layernorm{nullptr};
  torch::nn::Linear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr};
  torch::nn::Linear gate_proj{nullptr}, up_proj{nullptr}, down_proj{nullptr};

 private:
  torch::Tensor attention(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);
  int64_t n_head_, n_kv_head_, n_embd_;
  torch::Tensor mask_;  // causal_attention's cache (1.13's math path)
};
TORCH_MODULE(LlamaBlock);

class LlamaImpl : public torch::nn::Module {
 public:
  explicit LlamaImpl(const LlamaConfig& c);
  // idx: [B, T] int64 token ids (< vocab_size, T <= block_size) -> logits
  // [B, T, vocab_size].
  torch::Tensor forward(const torch::Tensor& idx);
  // Mean cross-entropy of logits against targets [B, T].
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& targets) const;
  // HF LlamaPreTrainedModel._init_weights: every Linear and Embedding weight
  // N(0, init_std), RMSNorm gains 1. Draws from torch's default generator.
  void init_weights();
  const LlamaConfig& config() const { return c_; }

  torch::nn::Embedding embed_tokens{nullptr};
  torch::nn::ModuleList layers{nullptr};
  RmsNorm norm{nullptr};

 private:
  LlamaConfig c_;
  torch::Tensor cos_, sin_;  // [block_size, head size] float32 RoPE tables, built on first use per device
};
TORCH_MODULE(Llama);

// Model FLOPs per trained token, the estimate llm.c uses (PaLM appendix B):
// 6 N for the forward and backward matmuls with the weights plus 6 L C T for
// the causal attention scores and their product with v (C = n_head x head
// size = n_embd; GQA shares k/v heads but every query head still computes
// its T scores). N = every parameter, the tied embedding/head counted once.
double llama_flops_per_token(const LlamaConfig& c, int64_t parameters);

}  // namespace milabench
