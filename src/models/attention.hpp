// The attention core of the 2026 transformers (gpt2, llama: causal; vit: not):
// softmax(q k^T / sqrt(head size) [+ causal mask]) v, no dropout. On libtorch
// 2.x it runs through scaled_dot_product_attention (compat::fused_sdpa: flash
// or memory-efficient kernels on the GPU); on 1.13 as the plain (masked)
// softmax, the math path.
#pragma once
#include <torch/torch.h>

namespace milabench {

// q, k, v: [B, heads, T, head size] (the same number of heads: a GQA caller
// repeats its k/v heads first) -> [B, heads, T, head size]. `causal`:
// position t sees positions <= t only. `mask_cache` is the caller's (one per
// module, not a parameter): on the causal math path it holds the [T, T]
// boolean future mask, rebuilt when T or the device changes.
torch::Tensor dot_product_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, bool causal,
                                    torch::Tensor& mask_cache);

// Multi-head self-attention from a fused projection: `qkv` [B, T, 3D] holds
// q, k and v in that order (torchvision's in_proj, timm's qkv, GPT-2's
// c_attn), split into `heads` heads of D / heads -> [B, T, D], the heads
// merged back, before the output projection. `causal` and `mask_cache` as above.
torch::Tensor fused_self_attention(const torch::Tensor& qkv, int64_t heads, bool causal, torch::Tensor& mask_cache);

// "sdpa" when this libtorch has scaled_dot_product_attention, "math" on 1.13
// (recorded in the result as the metric "attention").
const char* attention_kind();

}  // namespace milabench
