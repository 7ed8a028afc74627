#include "models/dit.hpp"

#include <cmath>

#include "models/attention.hpp"

namespace milabench {

namespace nn = torch::nn;

std::string DitConfig::problem() const {
  if (input_size < 1 || patch_size < 1 || input_size % patch_size != 0)
    return "--input-size must be a positive multiple of --patch-size";
  if (in_channels < 1) return "--in-channels must be >= 1";
  if (dim < 1 || depth < 1 || heads < 1 || mlp_dim < 1) return "--dim, --depth, --heads and --mlp-dim must be >= 1";
  if (dim % heads != 0) return "--dim must be a multiple of --heads";
  if (dim % 4 != 0) return "--dim must be a multiple of 4 (the 2-D sin-cos position embedding)";
  if (classes < 2) return "--classes must be >= 2";
  if (!(class_dropout >= 0 && class_dropout < 1)) return "--class-dropout must be in [0, 1)";
  if (diffusion_steps < 2) return "--diffusion-steps must be >= 2";
  return "";
}

namespace {
// DiT's modulate: x * (1 + scale) + shift, scale/shift [B, D] over the tokens.
torch::Tensor modulate(const torch::Tensor& x, const torch::Tensor& shift, const torch::Tensor& scale) {
  return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1);
}
// LayerNorm without affine parameters, eps 1e-6.
torch::Tensor plain_norm(const torch::Tensor& x) { return torch::layer_norm(x, {x.size(-1)}, {}, {}, 1e-6); }
// A child module named `name` of `parent` (for DiT's nested parameter names).
std::shared_ptr<nn::Module> child(nn::Module& parent, const std::string& name) {
  return parent.register_module(name, std::make_shared<nn::Module>());
}
}  // namespace

DitBlockImpl::DitBlockImpl(const DitConfig& c) : heads_(c.heads) {
  const int64_t D = c.dim;
  auto attn = child(*this, "attn");
  qkv = attn->register_module("qkv", nn::Linear(D, 3 * D));
  proj = attn->register_module("proj", nn::Linear(D, D));
  auto mlp = child(*this, "mlp");
  fc1 = mlp->register_module("fc1", nn::Linear(D, c.mlp_dim));
  fc2 = mlp->register_module("fc2", nn::Linear(c.mlp_dim, D));
  ada = child(*this, "adaLN_modulation")->register_module("1", nn::Linear(D, 6 * D));
}

torch::Tensor DitBlockImpl::attention(const torch::Tensor& x) {
  torch::Tensor no_mask;
  return proj(fused_self_attention(qkv(x), heads_, /*causal=*/false, no_mask));
}

torch::Tensor DitBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& c) {
  auto m = ada(torch::silu(c)).chunk(6, 1);  // shift, scale, gate (attention); shift, scale, gate (MLP)
  auto r = x + m[2].unsqueeze(1) * attention(modulate(plain_norm(x), m[0], m[1]));
  return r + m[5].unsqueeze(1) * fc2(torch::gelu(fc1(modulate(plain_norm(r), m[3], m[4])), "tanh"));
}

DitImpl::DitImpl(const DitConfig& c) : c_(c) {
  const int64_t D = c.dim, P = c.patch_size;
  x_proj =
      child(*this, "x_embedder")->register_module("proj", nn::Conv2d(nn::Conv2dOptions(c.in_channels, D, P).stride(P)));
  auto t_mlp = child(*child(*this, "t_embedder"), "mlp");
  t_fc1 = t_mlp->register_module("0", nn::Linear(c.frequency_dim, D));
  t_fc2 = t_mlp->register_module("2", nn::Linear(D, D));
  y_table = child(*this, "y_embedder")->register_module("embedding_table", nn::Embedding(c.classes + 1, D));
  pos_embed = register_buffer("pos_embed", sincos_pos_embed_2d(D, c.input_size / P).unsqueeze(0));
  blocks = register_module("blocks", nn::ModuleList());
  for (int64_t i = 0; i < c.depth; ++i) blocks->push_back(DitBlock(c));
  auto fin = child(*this, "final_layer");
  final_linear = fin->register_module("linear", nn::Linear(D, P * P * c.in_channels));
  final_ada = child(*fin, "adaLN_modulation")->register_module("1", nn::Linear(D, 2 * D));
  init_weights();
}

void DitImpl::init_weights() {
  torch::NoGradGuard ng;
  // _basic_init: every Linear Xavier-uniform, bias 0 (in module order).
  for (auto& m : modules(/*include_self=*/false))
    if (auto* l = m->as<nn::LinearImpl>()) {
      nn::init::xavier_uniform_(l->weight);
      l->bias.zero_();
    }
  nn::init::xavier_uniform_(x_proj->weight.view({c_.dim, -1}));
  x_proj->bias.zero_();
  y_table->weight.normal_(0.0, 0.02);
  t_fc1->weight.normal_(0.0, 0.02);
  t_fc2->weight.normal_(0.0, 0.02);
  for (const auto& m : *blocks) {
    auto& b = *m->as<DitBlockImpl>();
    b.ada->weight.zero_();
    b.ada->bias.zero_();
  }
  for (auto* l : {&final_ada, &final_linear}) (*l)->weight.zero_(), (*l)->bias.zero_();
}

torch::Tensor DitImpl::token_drop(const torch::Tensor& labels, const torch::Tensor& drop) const {
  return torch::where(drop, torch::full_like(labels, c_.classes), labels);
}

torch::Tensor DitImpl::forward(const torch::Tensor& x, const torch::Tensor& t, const torch::Tensor& y) {
  const int64_t C = c_.in_channels, H = c_.input_size, P = c_.patch_size, g = H / P;
  TORCH_CHECK(x.dim() == 4 && x.size(1) == C && x.size(2) == H && x.size(3) == H, "dit: x must be [B, ", C, ", ", H,
              ", ", H, "], got ", x.sizes());
  const int64_t B = x.size(0);
  auto h = x_proj(x).flatten(2).transpose(1, 2) + pos_embed;  // [B, S, D]
  auto c = t_fc2(torch::silu(t_fc1(timestep_embedding(t, c_.frequency_dim)))) + y_table(y);
  for (const auto& m : *blocks) h = m->as<DitBlockImpl>()->forward(h, c);
  auto f = final_ada(torch::silu(c)).chunk(2, 1);         // shift, scale
  h = final_linear(modulate(plain_norm(h), f[0], f[1]));  // [B, S, P*P*C]
  // unpatchify: (n, h, w, p, q, c) -> (n, c, h, p, w, q) -> [B, C, H, W].
  return h.reshape({B, g, g, P, P, C}).permute({0, 5, 1, 3, 2, 4}).reshape({B, C, H, H});
}

torch::Tensor sincos_pos_embed_2d(int64_t dim, int64_t grid) {
  const int64_t quarter = dim / 4;
  auto omega = 1.0 / torch::pow(10000.0, torch::arange(quarter, torch::kDouble) / double(quarter));
  auto one_d = [&](const torch::Tensor& pos) {  // [M] -> [M, dim/2]: sin, cos
    auto out = pos.unsqueeze(1) * omega.unsqueeze(0);
    return torch::cat({out.sin(), out.cos()}, 1);
  };
  auto r = torch::arange(grid, torch::kDouble);
  auto col = r.repeat({grid}), row = r.repeat_interleave(grid);  // token m = row * grid + col
  return torch::cat({one_d(col), one_d(row)}, 1).to(torch::kFloat);
}

torch::Tensor timestep_embedding(const torch::Tensor& t, int64_t dim) {
  const int64_t half = dim / 2;
  auto f32 = torch::TensorOptions().dtype(torch::kFloat).device(t.device());
  auto freqs = torch::exp(-std::log(10000.0) * torch::arange(half, f32) / double(half));
  auto args = t.unsqueeze(1).to(torch::kFloat) * freqs.unsqueeze(0);
  auto e = torch::cat({args.cos(), args.sin()}, -1);
  if (dim % 2) e = torch::cat({e, torch::zeros_like(e.slice(1, 0, 1))}, -1);
  return e;
}

DdpmSchedule::DdpmSchedule(int64_t steps, torch::Device device) {
  // numpy.linspace: start + i * step, the last exactly `end`.
  const double scale = 1000.0 / double(steps), start = scale * 1e-4, end = scale * 0.02;
  auto betas = torch::arange(steps, torch::kDouble) * ((end - start) / double(steps - 1)) + start;
  betas[steps - 1] = end;
  auto abar = torch::cumprod(1.0 - betas, 0);  // sequential on the CPU, as numpy.cumprod
  sqrt_alphas_cumprod = abar.sqrt().to(device);
  sqrt_one_minus_alphas_cumprod = (1.0 - abar).sqrt().to(device);
}

torch::Tensor DdpmSchedule::q_sample(const torch::Tensor& x0, const torch::Tensor& t,
                                     const torch::Tensor& noise) const {
  std::vector<int64_t> shape(size_t(x0.dim()), 1);
  shape[0] = x0.size(0);
  auto at = [&](const torch::Tensor& a) { return a.index_select(0, t).to(torch::kFloat).view(shape); };
  return at(sqrt_alphas_cumprod) * x0 + at(sqrt_one_minus_alphas_cumprod) * noise;
}

torch::Tensor dit_loss(DitImpl& model, const DdpmSchedule& d, const torch::Tensor& x0, const torch::Tensor& t,
                       const torch::Tensor& y, const torch::Tensor& noise) {
  return torch::mse_loss(model.forward(d.q_sample(x0, t, noise), t, y), noise);
}

double dit_flops_per_image(DitImpl& model) {
  auto count = [](nn::Module& m) {
    int64_t n = 0;
    for (const auto& p : m.parameters()) n += p.numel();
    return double(n);
  };
  const DitConfig& c = model.config();
  double per_token = count(*model.x_proj) + count(*model.final_linear);
  double per_image = count(*model.t_fc1) + count(*model.t_fc2) + count(*model.final_ada);
  for (const auto& m : *model.blocks) {
    auto& b = *m->as<DitBlockImpl>();
    per_token += count(*b.qkv) + count(*b.proj) + count(*b.fc1) + count(*b.fc2);
    per_image += count(*b.ada);
  }
  const double S = double(c.tokens());
  return 6.0 * per_token * S + 6.0 * per_image + 12.0 * double(c.depth) * S * S * double(c.dim);
}

}  // namespace milabench
