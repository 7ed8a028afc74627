#include "models/vit.hpp"

#include <cmath>

#include "models/attention.hpp"

namespace milabench {

namespace nn = torch::nn;

std::string VitConfig::problem() const {
  if (image_size < 1 || patch_size < 1 || image_size % patch_size != 0)
    return "--image-size must be a positive multiple of --patch-size";
  if (dim < 1 || depth < 1 || heads < 1 || mlp_dim < 1) return "--dim, --depth, --heads and --mlp-dim must be >= 1";
  if (dim % heads != 0) return "--dim must be a multiple of --heads";
  if (classes < 2) return "--classes must be >= 2";
  return "";
}

VitBlockImpl::VitBlockImpl(const VitConfig& c) : heads_(c.heads) {
  const int64_t D = c.dim;
  ln_1 = register_module("ln_1", nn::LayerNorm(nn::LayerNormOptions({D}).eps(1e-6)));
  auto attn = register_module("attn", std::make_shared<nn::Module>());
  qkv = attn->register_module("qkv", nn::Linear(D, 3 * D));
  proj = attn->register_module("proj", nn::Linear(D, D));
  ln_2 = register_module("ln_2", nn::LayerNorm(nn::LayerNormOptions({D}).eps(1e-6)));
  auto mlp = register_module("mlp", std::make_shared<nn::Module>());
  fc1 = mlp->register_module("fc1", nn::Linear(D, c.mlp_dim));
  fc2 = mlp->register_module("fc2", nn::Linear(c.mlp_dim, D));
}

torch::Tensor VitBlockImpl::attention(const torch::Tensor& x) {
  torch::Tensor no_mask;
  return proj(fused_self_attention(qkv(x), heads_, /*causal=*/false, no_mask));
}

torch::Tensor VitBlockImpl::forward(const torch::Tensor& x) {
  auto r = x + attention(ln_1(x));
  return r + fc2(torch::gelu(fc1(ln_2(r))));
}

VitImpl::VitImpl(const VitConfig& c) : c_(c) {
  patch_embed =
      register_module("patch_embed", nn::Conv2d(nn::Conv2dOptions(3, c.dim, c.patch_size).stride(c.patch_size)));
  cls_token = register_parameter("cls_token", torch::zeros({1, 1, c.dim}));
  pos_embed = register_parameter("pos_embed", torch::zeros({1, c.tokens(), c.dim}));
  blocks = register_module("blocks", nn::ModuleList());
  for (int64_t i = 0; i < c.depth; ++i) blocks->push_back(VitBlock(c));
  ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({c.dim}).eps(1e-6)));
  head = register_module("head", nn::Linear(c.dim, c.classes));
  init_weights();
}

namespace {
// N(0, std) truncated to [-2 std, 2 std] (torch.nn.init.trunc_normal_'s
// default bounds a=-2, b=2 are absolute; with std = sqrt(1/fan_in) < 1 they
// lie beyond 2 std, so this is the same distribution up to the far tails).
void trunc_normal(torch::Tensor w, double std) {
  w.normal_(0.0, std);
  w.clamp_(-2.0, 2.0);
}
}  // namespace

void VitImpl::init_weights() {
  torch::NoGradGuard ng;
  const int64_t fan_in = 3 * c_.patch_size * c_.patch_size;
  trunc_normal(patch_embed->weight, std::sqrt(1.0 / double(fan_in)));
  patch_embed->bias.zero_();
  cls_token.zero_();
  pos_embed.normal_(0.0, 0.02);
  for (const auto& m : *blocks) {
    auto& b = *m->as<VitBlockImpl>();
    nn::init::xavier_uniform_(b.qkv->weight);
    b.qkv->bias.zero_();
    const double bound = 1.0 / std::sqrt(double(c_.dim));
    b.proj->weight.uniform_(-bound, bound);
    b.proj->bias.zero_();
    for (auto* fc : {&b.fc1, &b.fc2}) {
      nn::init::xavier_uniform_((*fc)->weight);
      (*fc)->bias.normal_(0.0, 1e-6);
    }
    for (auto* n : {&b.ln_1, &b.ln_2}) (*n)->weight.fill_(1.0), (*n)->bias.zero_();
  }
  ln->weight.fill_(1.0);
  ln->bias.zero_();
  head->weight.zero_();
  head->bias.zero_();
}

torch::Tensor VitImpl::forward(const torch::Tensor& images) {
  TORCH_CHECK(
      images.dim() == 4 && images.size(1) == 3 && images.size(2) == c_.image_size && images.size(3) == c_.image_size,
      "vit: images must be [B, 3, ", c_.image_size, ", ", c_.image_size, "], got ", images.sizes());
  auto x = patch_embed(images).flatten(2).transpose(1, 2);  // [B, N, D]
  x = torch::cat({cls_token.expand({x.size(0), 1, c_.dim}), x}, 1) + pos_embed;
  for (const auto& m : *blocks) x = m->as<VitBlockImpl>()->forward(x);
  return head(ln(x).select(1, 0));
}

double vit_flops_per_image(VitImpl& model) {
  auto count = [](torch::nn::Module& m) {
    int64_t n = 0;
    for (const auto& p : m.parameters()) n += p.numel();
    return double(n);
  };
  const VitConfig& c = model.config();
  const double S = double(c.tokens());
  return 6.0 * count(*model.patch_embed) * (S - 1) + 6.0 * count(*model.blocks) * S + 6.0 * count(*model.head) +
         12.0 * double(c.depth) * S * S * double(c.dim);
}

}  // namespace milabench
