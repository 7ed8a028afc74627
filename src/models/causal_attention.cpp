#include "models/causal_attention.hpp"

#include <cmath>
#include <limits>

#include "compat/torch_compat.hpp"

namespace milabench {

torch::Tensor causal_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               torch::Tensor& mask_cache) {
  if (auto fused = compat::causal_sdpa(q, k, v)) return *fused;
  const int64_t T = q.size(2), hs = q.size(3);
  if (!mask_cache.defined() || mask_cache.size(0) != T || mask_cache.device() != q.device())
    mask_cache = torch::ones({T, T}, torch::TensorOptions().dtype(torch::kBool).device(q.device())).triu(1);
  auto att = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(double(hs)));
  att = att.masked_fill(mask_cache, -std::numeric_limits<float>::infinity()).softmax(-1);
  return torch::matmul(att, v);
}

const char* causal_attention_kind() {
#if MILABENCH_TORCH_AT_LEAST(2, 0)
  return "sdpa";
#else
  return "math";
#endif
}

}  // namespace milabench
