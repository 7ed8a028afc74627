#include "models/llama.hpp"

#include "models/attention.hpp"

namespace milabench {

namespace nn = torch::nn;

std::string LlamaConfig::problem() const {
  if (n_layer < 1 || n_embd < 1 || n_head < 1 || n_kv_head < 1 || ffn_hidden < 1)
    return "--n-layer, --n-embd, --n-head, --n-kv-head and --ffn-hidden must be >= 1";
  if (n_embd % n_head != 0) return "--n-embd must be a multiple of --n-head";
  if ((n_embd / n_head) % 2 != 0) return "the head size (--n-embd / --n-head) must be even (RoPE rotates pairs)";
  if (n_head % n_kv_head != 0) return "--n-head must be a multiple of --n-kv-head";
  if (block_size < 1) return "--seq-len must be >= 1";
  if (vocab_size < 2) return "--vocab-size must be >= 2";
  if (!(norm_eps > 0) || !(rope_theta > 0)) return "--norm-eps and --rope-theta must be > 0";
  return "";
}

RmsNormImpl::RmsNormImpl(int64_t dim, double eps) : eps_(eps) {
  weight = register_parameter("weight", torch::ones({dim}));
}

torch::Tensor RmsNormImpl::forward(const torch::Tensor& x) {
  auto xf = x.to(torch::kFloat);
  auto normed = xf * torch::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true) + eps_);
  return weight * normed.to(x.scalar_type());
}

LlamaBlockImpl::LlamaBlockImpl(const LlamaConfig& c) : n_head_(c.n_head), n_kv_head_(c.n_kv_head), n_embd_(c.n_embd) {
  const int64_t C = c.n_embd, kv = c.n_kv_head * (c.n_embd / c.n_head);
  auto lin = [](int64_t in, int64_t out) { return nn::Linear(nn::LinearOptions(in, out).bias(false)); };
  input_layernorm = register_module("input_layernorm", RmsNorm(C, c.norm_eps));
  auto attn = register_module("self_attn", std::make_shared<nn::Module>());
  q_proj = attn->register_module("q_proj", lin(C, C));
  k_proj = attn->register_module("k_proj", lin(C, kv));
  v_proj = attn->register_module("v_proj", lin(C, kv));
  o_proj = attn->register_module("o_proj", lin(C, C));
  post_attention_layernorm = register_module("post_attention_layernorm", RmsNorm(C, c.norm_eps));
  auto mlp = register_module("mlp", std::make_shared<nn::Module>());
  gate_proj = mlp->register_module("gate_proj", lin(C, c.ffn_hidden));
  up_proj = mlp->register_module("up_proj", lin(C, c.ffn_hidden));
  down_proj = mlp->register_module("down_proj", lin(c.ffn_hidden, C));
}

namespace {
// HF rotate_half: (x1, x2) -> (-x2, x1) over the two halves of the last dim.
torch::Tensor rotate_half(const torch::Tensor& x) {
  auto halves = x.chunk(2, -1);
  return torch::cat({-halves[1], halves[0]}, -1);
}
}  // namespace

torch::Tensor LlamaBlockImpl::attention(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  const int64_t B = x.size(0), T = x.size(1), hs = n_embd_ / n_head_, rep = n_head_ / n_kv_head_;
  auto heads = [&](const torch::Tensor& t, int64_t n) { return t.view({B, T, n, hs}).transpose(1, 2); };
  auto q = heads(q_proj(x), n_head_), k = heads(k_proj(x), n_kv_head_), v = heads(v_proj(x), n_kv_head_);
  // RoPE in q's compute dtype (HF apply_rotary_pos_emb casts cos/sin to it).
  auto c = cos.to(q.scalar_type()), s = sin.to(q.scalar_type());
  q = q * c + rotate_half(q) * s;
  k = k * c + rotate_half(k) * s;
  // GQA: each k/v head serves `rep` consecutive query heads (HF repeat_kv).
  auto repeat = [&](const torch::Tensor& t) {
    return rep == 1 ? t : t.unsqueeze(2).expand({B, n_kv_head_, rep, T, hs}).reshape({B, n_head_, T, hs});
  };
  auto y = dot_product_attention(q, repeat(k), repeat(v), /*causal=*/true, mask_);
  return o_proj(y.transpose(1, 2).contiguous().view({B, T, n_embd_}));
}

torch::Tensor LlamaBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  auto h = x + attention(input_layernorm(x), cos, sin);
  auto n = post_attention_layernorm(h);
  return h + down_proj(torch::silu(gate_proj(n)) * up_proj(n));
}

LlamaImpl::LlamaImpl(const LlamaConfig& c) : c_(c) {
  embed_tokens = register_module("embed_tokens", nn::Embedding(c.vocab_size, c.n_embd));
  layers = register_module("layers", nn::ModuleList());
  for (int64_t i = 0; i < c.n_layer; ++i) layers->push_back(LlamaBlock(c));
  norm = register_module("norm", RmsNorm(c.n_embd, c.norm_eps));
  init_weights();
}

void LlamaImpl::init_weights() {
  torch::NoGradGuard ng;
  embed_tokens->weight.normal_(0.0, c_.init_std);
  for (const auto& m : *layers) {
    auto& b = *m->as<LlamaBlockImpl>();
    for (auto* lin : {&b.q_proj, &b.k_proj, &b.v_proj, &b.o_proj, &b.gate_proj, &b.up_proj, &b.down_proj})
      (*lin)->weight.normal_(0.0, c_.init_std);
    b.input_layernorm->weight.fill_(1.0);
    b.post_attention_layernorm->weight.fill_(1.0);
  }
  norm->weight.fill_(1.0);
}

torch::Tensor LlamaImpl::forward(const torch::Tensor& idx) {
  const int64_t T = idx.size(1), hs = c_.n_embd / c_.n_head;
  TORCH_CHECK(T <= c_.block_size, "llama: sequence of ", T, " tokens, longer than the block size ", c_.block_size);
  if (!cos_.defined() || cos_.device() != idx.device()) {
    // HF LlamaRotaryEmbedding (rope_type "default"): inv_freq = theta^(-2i/hs),
    // angles t x inv_freq for t < block_size, duplicated over both halves.
    auto f = torch::TensorOptions().dtype(torch::kFloat).device(idx.device());
    auto inv_freq = 1.0 / torch::pow(c_.rope_theta, torch::arange(0, hs, 2, f.dtype(torch::kLong)).to(f) / double(hs));
    auto angles = torch::outer(torch::arange(c_.block_size, f), inv_freq);
    auto emb = torch::cat({angles, angles}, -1);
    cos_ = emb.cos(), sin_ = emb.sin();
  }
  auto cos = cos_.slice(0, 0, T), sin = sin_.slice(0, 0, T);
  auto x = embed_tokens(idx);
  for (const auto& m : *layers) x = m->as<LlamaBlockImpl>()->forward(x, cos, sin);
  return torch::nn::functional::linear(norm(x), embed_tokens->weight);  // lm_head tied to embed_tokens
}

torch::Tensor LlamaImpl::loss(const torch::Tensor& logits, const torch::Tensor& targets) const {
  return torch::nn::functional::cross_entropy(logits.reshape({-1, c_.vocab_size}), targets.reshape({-1}));
}

double llama_flops_per_token(const LlamaConfig& c, int64_t parameters) {
  return 6.0 * double(parameters) + 6.0 * double(c.n_layer) * double(c.n_embd) * double(c.block_size);
}

}  // namespace milabench
