#include "models/gpt2.hpp"

#include <cmath>

#include "models/attention.hpp"

namespace milabench {

namespace nn = torch::nn;

std::string Gpt2Config::problem() const {
  if (n_layer < 1 || n_embd < 1 || n_head < 1) return "--n-layer, --n-embd and --n-head must be >= 1";
  if (n_embd % n_head != 0) return "--n-embd must be a multiple of --n-head";
  if (block_size < 1) return "--seq-len must be >= 1";
  if (vocab_size < 2) return "--vocab-size must be >= 2";
  if (padded_vocab_size < vocab_size) return "--padded-vocab-size must be >= --vocab-size";
  return "";
}

Gpt2BlockImpl::Gpt2BlockImpl(const Gpt2Config& c) : n_head_(c.n_head) {
  const int64_t C = c.n_embd;
  ln_1 = register_module("ln_1", nn::LayerNorm(nn::LayerNormOptions({C})));
  auto attn = register_module("attn", std::make_shared<nn::Module>());
  c_attn = attn->register_module("c_attn", nn::Linear(C, 3 * C));
  attn_proj = attn->register_module("c_proj", nn::Linear(C, C));
  ln_2 = register_module("ln_2", nn::LayerNorm(nn::LayerNormOptions({C})));
  auto mlp = register_module("mlp", std::make_shared<nn::Module>());
  c_fc = mlp->register_module("c_fc", nn::Linear(C, 4 * C));
  mlp_proj = mlp->register_module("c_proj", nn::Linear(4 * C, C));
}

torch::Tensor Gpt2BlockImpl::attention(const torch::Tensor& x) {
  return attn_proj(fused_self_attention(c_attn(x), n_head_, /*causal=*/true, mask_));
}

torch::Tensor Gpt2BlockImpl::forward(const torch::Tensor& x) {
  auto r = x + attention(ln_1(x));
  return r + mlp_proj(torch::gelu(c_fc(ln_2(r)), "tanh"));
}

Gpt2Impl::Gpt2Impl(const Gpt2Config& c) : c_(c) {
  wte = register_module("wte", nn::Embedding(c.padded_vocab_size, c.n_embd));
  wpe = register_module("wpe", nn::Embedding(c.block_size, c.n_embd));
  h = register_module("h", nn::ModuleList());
  for (int64_t i = 0; i < c.n_layer; ++i) h->push_back(Gpt2Block(c));
  ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({c.n_embd})));
  init_weights();
}

void Gpt2Impl::init_weights() {
  torch::NoGradGuard ng;
  const double std = c_.init_std, residual_std = c_.init_std / std::sqrt(2.0 * double(c_.n_layer));
  wte->weight.normal_(0.0, std);
  wte->weight.slice(0, c_.vocab_size).zero_();
  wpe->weight.normal_(0.0, std);
  for (const auto& m : *h) {
    auto& b = *m->as<Gpt2BlockImpl>();
    for (auto* lin : {&b.c_attn, &b.attn_proj, &b.c_fc, &b.mlp_proj}) {
      const bool residual = lin == &b.attn_proj || lin == &b.mlp_proj;
      (*lin)->weight.normal_(0.0, residual ? residual_std : std);
      (*lin)->bias.zero_();
    }
    for (auto* ln : {&b.ln_1, &b.ln_2}) (*ln)->weight.fill_(1.0), (*ln)->bias.zero_();
  }
  ln_f->weight.fill_(1.0);
  ln_f->bias.zero_();
}

torch::Tensor Gpt2Impl::forward(const torch::Tensor& idx) {
  const int64_t T = idx.size(1);
  TORCH_CHECK(T <= c_.block_size, "gpt2: sequence of ", T, " tokens, longer than the block size ", c_.block_size);
  auto pos = torch::arange(T, torch::TensorOptions().dtype(torch::kLong).device(idx.device()));
  auto x = wte(idx) + wpe(pos);
  for (const auto& m : *h) x = m->as<Gpt2BlockImpl>()->forward(x);
  return torch::nn::functional::linear(ln_f(x), wte->weight);  // lm_head tied to wte
}

torch::Tensor Gpt2Impl::loss(const torch::Tensor& logits, const torch::Tensor& targets) const {
  auto real = logits.slice(-1, 0, c_.vocab_size);
  return torch::nn::functional::cross_entropy(real.reshape({-1, c_.vocab_size}), targets.reshape({-1}));
}

double gpt2_flops_per_token(const Gpt2Config& c, int64_t parameters) {
  return 6.0 * double(parameters) + 6.0 * double(c.n_layer) * double(c.n_embd) * double(c.block_size);
}

}  // namespace milabench
