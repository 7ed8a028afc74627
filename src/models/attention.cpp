#include "models/attention.hpp"

#include <cmath>
#include <limits>

#include "compat/torch_compat.hpp"

namespace milabench {

torch::Tensor dot_product_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, bool causal,
                                    torch::Tensor& mask_cache) {
  if (auto fused = compat::fused_sdpa(q, k, v, causal)) return *fused;
  const int64_t T = q.size(2), hs = q.size(3);
  auto att = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(double(hs)));
  if (causal) {
    if (!mask_cache.defined() || mask_cache.size(0) != T || mask_cache.device() != q.device())
      mask_cache = torch::ones({T, T}, torch::TensorOptions().dtype(torch::kBool).device(q.device())).triu(1);
    att = att.masked_fill(mask_cache, -std::numeric_limits<float>::infinity());
  }
  return torch::matmul(att.softmax(-1), v);
}

torch::Tensor fused_self_attention(const torch::Tensor& qkv, int64_t heads, bool causal, torch::Tensor& mask_cache) {
  const int64_t B = qkv.size(0), T = qkv.size(1), D = qkv.size(2) / 3, hs = D / heads;
  auto parts = qkv.split(D, 2);
  auto split_heads = [&](const torch::Tensor& t) { return t.view({B, T, heads, hs}).transpose(1, 2); };
  auto y =
      dot_product_attention(split_heads(parts[0]), split_heads(parts[1]), split_heads(parts[2]), causal, mask_cache);
  return y.transpose(1, 2).contiguous().view({B, T, D});
}

const char* attention_kind() {
#if MILABENCH_TORCH_AT_LEAST(2, 0)
  return "sdpa";
#else
  return "math";
#endif
}

}  // namespace milabench
