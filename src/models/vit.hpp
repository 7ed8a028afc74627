// ViT (Dosovitskiy et al. 2021, "An Image is Worth 16x16 Words"), laid out
// and initialised as torchvision's vision_transformer.py (vit_b_16): a
// patch-embedding convolution (kernel = stride = patch), a class token and a
// learned position embedding over the 1 + (H/P)^2 tokens, `depth`
// pre-LayerNorm encoder blocks (eps 1e-6; multi-head self-attention with one
// fused qkv projection and biases; MLP with exact GELU), a final LayerNorm
// and a linear head on the class token. No dropout (torchvision's default
// 0.0). Parameter names: patch_embed.{weight,bias}, cls_token [1,1,D],
// pos_embed [1,S,D], blocks.N.{ln_1,attn.qkv,attn.proj,ln_2,mlp.fc1,mlp.fc2}
// .{weight,bias}, ln.{weight,bias}, head.{weight,bias}
// (bench/python/vit_reference.py uses the same).
#pragma once
#include <torch/torch.h>

#include <string>

namespace milabench {

struct VitConfig {
  int64_t image_size = 224, patch_size = 16, dim = 768, depth = 12, heads = 12, mlp_dim = 3072, classes = 1000;

  static VitConfig b16() { return {}; }
  static VitConfig tiny() { return {32, 8, 64, 2, 4, 256, 10}; }
  // Tokens per image: the class token and one per patch.
  int64_t tokens() const { return 1 + (image_size / patch_size) * (image_size / patch_size); }
  // Empty when consistent; else one line naming the first bad flag.
  std::string problem() const;
};

class VitBlockImpl : public torch::nn::Module {
 public:
  explicit VitBlockImpl(const VitConfig& c);
  torch::Tensor forward(const torch::Tensor& x);  // [B, S, D] -> [B, S, D]
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  torch::nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};

 private:
  torch::Tensor attention(const torch::Tensor& x);
  int64_t heads_;
};
TORCH_MODULE(VitBlock);

class VitImpl : public torch::nn::Module {
 public:
  explicit VitImpl(const VitConfig& c);
  // images: [B, 3, image_size, image_size] float (normalised) -> logits [B, classes].
  torch::Tensor forward(const torch::Tensor& images);
  // torchvision's initialisation: the patch convolution truncated-normal with
  // std sqrt(1 / fan_in) and bias 0; cls_token 0; pos_embed N(0, 0.02); qkv
  // Xavier-uniform with bias 0 (nn.MultiheadAttention's in_proj), proj
  // U(+-1/sqrt(D)) with bias 0 (its out_proj); MLP weights Xavier-uniform,
  // biases N(0, 1e-6); LayerNorms (1, 0); the head all 0, so step 0's logits
  // are 0 and its loss is exactly ln(classes). Draws from torch's default
  // generator.
  void init_weights();
  const VitConfig& config() const { return c_; }

  torch::nn::Conv2d patch_embed{nullptr};
  torch::Tensor cls_token, pos_embed;
  torch::nn::ModuleList blocks{nullptr};
  torch::nn::LayerNorm ln{nullptr};
  torch::nn::Linear head{nullptr};

 private:
  VitConfig c_;
};
TORCH_MODULE(Vit);

// Model FLOPs per trained image (forward + backward = 3 x forward, 2 FLOPs a
// multiply-add): 6 x the patch embedding's parameters x the S - 1 patches,
// 6 x the blocks' parameters x the S tokens, 6 x the head's (the class token
// only), plus 12 L S^2 D for the attention scores and their weighted sum (no
// causal mask, so nothing is halved).
double vit_flops_per_image(VitImpl& model);

}  // namespace milabench
