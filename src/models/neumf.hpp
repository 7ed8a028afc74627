// NeuMF (He et al. 2017) as the original's recommendation model (MLPerf NCF
// reference, neumf.py): GMF branch = user and item embeddings of mf_dim,
// multiplied; MLP branch = user and item embeddings of layers[0]/2 each,
// concatenated, then Linear+ReLU through `layers`; final Linear over both
// branches to one logit. Initialisation as the original: embeddings N(0, 0.01),
// MLP weights Glorot-uniform, final weight LeCun-uniform, biases PyTorch's default.
#pragma once
#include <torch/torch.h>

#include <vector>

namespace milabench {

struct NeuMFOptions {
  int64_t users = 0, items = 0;
  int64_t mf_dim = 64;                         // -f/--factors
  std::vector<int64_t> layers{256, 256, 128, 64};  // --layers
};

class NeuMFImpl : public torch::nn::Module {
 public:
  // Throws std::invalid_argument when a size is < 1, layers is empty or
  // layers[0] is odd (it is split between the user and the item embedding).
  explicit NeuMFImpl(const NeuMFOptions& o);
  // user, item: int64 [B] -> logits [B, 1].
  torch::Tensor forward(const torch::Tensor& user, const torch::Tensor& item);

 private:
  torch::nn::Embedding mf_user_{nullptr}, mf_item_{nullptr}, mlp_user_{nullptr}, mlp_item_{nullptr};
  torch::nn::ModuleList mlp_{nullptr};
  torch::nn::Linear final_{nullptr};
};
TORCH_MODULE(NeuMF);

int64_t neumf_parameter_count(const NeuMFOptions& o);

}  // namespace milabench
