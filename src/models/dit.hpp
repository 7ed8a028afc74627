// DiT (Peebles & Xie 2023, "Scalable Diffusion Models with Transformers"),
// written from facebookresearch/DiT models.py and laid out as it is: a
// patch-embedding convolution (kernel = stride = patch) plus a fixed 2-D
// sin-cos position embedding (MAE's, a buffer: not trained), a timestep
// embedder (256 sinusoidal frequencies, max period 10000, then
// Linear-SiLU-Linear), a label embedder (classes + 1 null class for DiT's
// class dropout), `depth` adaLN-Zero blocks (LayerNorm without affine, eps
// 1e-6; shift/scale/gate of attention and MLP from SiLU + Linear(c, 6D) of
// the conditioning c = timestep embedding + label embedding; timm's attention
// with one fused qkv projection and biases; MLP with tanh GELU), a final
// layer (adaLN shift/scale, Linear to P*P*C) and unpatchify. learn_sigma =
// False: the output has the input's channels (the epsilon prediction). No
// dropout. Parameter names follow DiT's state_dict: x_embedder.proj,
// t_embedder.mlp.{0,2}, y_embedder.embedding_table, blocks.N.{attn.qkv,
// attn.proj,mlp.fc1,mlp.fc2,adaLN_modulation.1}, final_layer.{linear,
// adaLN_modulation.1} (bench/python/dit_reference.py uses the same).
#pragma once
#include <torch/torch.h>

#include <string>

namespace milabench {

struct DitConfig {
  int64_t input_size = 32, patch_size = 2, in_channels = 4, dim = 768, depth = 12, heads = 12, mlp_dim = 3072,
          classes = 1000;
  double class_dropout = 0.1;      // DiT's class_dropout_prob: labels replaced by the null class in training
  int64_t frequency_dim = 256;     // the timestep embedder's sinusoid size
  int64_t diffusion_steps = 1000;  // DDPM's T (t in 0 .. T-1)

  static DitConfig b2() { return {}; }  // DiT-B/2, learn_sigma = False
  static DitConfig tiny() { return {8, 2, 4, 64, 2, 4, 256, 10}; }
  // Tokens per image: one per patch.
  int64_t tokens() const { return (input_size / patch_size) * (input_size / patch_size); }
  // Empty when consistent; else one line naming the first bad flag.
  std::string problem() const;
};

class DitBlockImpl : public torch::nn::Module {
 public:
  explicit DitBlockImpl(const DitConfig& c);
  // x: [B, S, D], c: [B, D] -> [B, S, D].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& c);
  torch::nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr}, ada{nullptr};

 private:
  torch::Tensor attention(const torch::Tensor& x);
  int64_t heads_;
};
TORCH_MODULE(DitBlock);

class DitImpl : public torch::nn::Module {
 public:
  explicit DitImpl(const DitConfig& c);
  // x: [B, C, H, W] float, t: [B] integer timesteps, y: [B] labels in
  // [0, classes] (classes: the null class; the caller applies token_drop)
  // -> the predicted noise [B, C, H, W].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& t, const torch::Tensor& y);
  // DiT's LabelEmbedder.token_drop: labels where `drop` (bool [B]) is set
  // become the null class (`classes`).
  torch::Tensor token_drop(const torch::Tensor& labels, const torch::Tensor& drop) const;
  // DiT's initialisation: every Linear Xavier-uniform with bias 0; the patch
  // convolution's weight Xavier-uniform on its [D, C*P*P] view, bias 0; the
  // label table N(0, 0.02); the timestep MLP's weights N(0, 0.02); every
  // adaLN modulation Linear 0; the final Linear 0 (so step 0 predicts 0 and
  // its loss is E[noise^2] ~ 1). Draws from torch's default generator.
  void init_weights();
  const DitConfig& config() const { return c_; }

  torch::nn::Conv2d x_proj{nullptr};
  torch::nn::Linear t_fc1{nullptr}, t_fc2{nullptr}, final_linear{nullptr}, final_ada{nullptr};
  torch::nn::Embedding y_table{nullptr};
  torch::Tensor pos_embed;  // buffer [1, S, D], the fixed sin-cos embedding
  torch::nn::ModuleList blocks{nullptr};

 private:
  DitConfig c_;
};
TORCH_MODULE(Dit);

// MAE's / DiT's get_2d_sincos_pos_embed(dim, grid) in float64, cast to
// float32: [grid*grid, dim]; the first dim/2 channels encode the column, the
// rest the row, each as [sin, cos] of pos / 10000^(k / (dim/4)).
torch::Tensor sincos_pos_embed_2d(int64_t dim, int64_t grid);

// GLIDE's / DiT's timestep_embedding(t, dim, 10000): [cos(t f), sin(t f)]
// with f_k = exp(-ln(10000) k / (dim/2)), float32 [B, dim].
torch::Tensor timestep_embedding(const torch::Tensor& t, int64_t dim);

// DiT's diffusion: the linear beta schedule 1e-4 .. 0.02 over `steps` (scaled
// by 1000 / steps, as get_named_beta_schedule), computed in float64 as numpy
// does; q_sample as _extract_into_tensor does (the float64 coefficients at t
// cast to float32).
struct DdpmSchedule {
  torch::Tensor sqrt_alphas_cumprod, sqrt_one_minus_alphas_cumprod;  // float64 [steps]
  DdpmSchedule(int64_t steps, torch::Device device);
  // x_t = sqrt(abar_t) x0 + sqrt(1 - abar_t) noise, x0/noise [B, ...], t [B].
  torch::Tensor q_sample(const torch::Tensor& x0, const torch::Tensor& t, const torch::Tensor& noise) const;
};

// DiT's training loss with learn_sigma = False: MSE(model(x_t, t, y), noise)
// over every element (mean_flat then mean: the same for equal shapes).
torch::Tensor dit_loss(DitImpl& model, const DdpmSchedule& d, const torch::Tensor& x0, const torch::Tensor& t,
                       const torch::Tensor& y, const torch::Tensor& noise);

// Model FLOPs per trained image (forward + backward = 3 x forward, 2 FLOPs a
// multiply-add), counted as vit counts them: 6 x the parameters applied to
// every token (the patch embedding, the blocks' attention and MLP Linears,
// the final Linear) x the S tokens, plus 6 x the parameters applied once per
// image to the conditioning (the timestep MLP, every adaLN modulation
// Linear), plus 12 L S^2 D for the attention scores and their weighted sum
// (no mask). The label table is a lookup: no FLOPs.
double dit_flops_per_image(DitImpl& model);

}  // namespace milabench
