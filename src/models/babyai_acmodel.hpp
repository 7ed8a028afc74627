// BabyAI's actor-critic model (babyai/model.py, ACModel) as milabench's
// minigrid workload built it with BabyAI's default arguments:
// arch "expert_filmcnn" (conv 2x2/128 + BN, maxpool, conv 3x3/128 + BN,
// maxpool, two FiLM blocks conditioned on the instruction, maxpool), the
// instruction encoded by a word embedding + GRU, an LSTMCell memory, and
// actor/critic MLPs with 64 tanh hidden units. arch "cnn1" (conv 2x2/16,
// maxpool, 2x2/32, 2x2/image_dim) is the light alternative.
// Linear layers use BabyAI's initialize_parameters (row-normalised gaussian,
// zero bias); other layers keep PyTorch's defaults, as the original.
#pragma once
#include <torch/torch.h>

#include <string>
#include <vector>

namespace milabench {

struct BabyAIModelOptions {
  int64_t image_dim = 128, memory_dim = 128, instr_dim = 128;
  bool use_instr = true, use_memory = true;
  std::string arch = "expert_filmcnn";  // or "cnn1"
  std::string instr_arch = "gru";       // the only one implemented
  int64_t vocab_size = 100;             // BabyAI's Vocabulary(max_size=100)
  int64_t num_actions = 7;
};

struct FilmBlockImpl : torch::nn::Module {
  FilmBlockImpl(int64_t in_features, int64_t out_features, int64_t in_channels, int64_t imm_channels);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& y);
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Linear weight{nullptr}, bias{nullptr};
};
TORCH_MODULE(FilmBlock);

struct ACOutput {
  torch::Tensor logits;  // [B, actions], log-softmax normalised
  torch::Tensor value;   // [B]
  torch::Tensor memory;  // [B, 2 * memory_dim] (h, c); the input memory when memory is off
};

class BabyAIModelImpl : public torch::nn::Module {
 public:
  // Throws std::invalid_argument naming the flag for an unsupported setting.
  explicit BabyAIModelImpl(const BabyAIModelOptions& o);
  // image: [B, 7, 7, 3] float (raw MiniGrid codes, [x][y][channel]);
  // instr: [B, L] int64 token ids, 0 = padding; memory: [B, memory_size()].
  ACOutput forward(const torch::Tensor& image, const torch::Tensor& instr, const torch::Tensor& memory);
  int64_t memory_size() const { return 2 * o_.memory_dim; }

 private:
  torch::Tensor instr_embedding(const torch::Tensor& instr);
  BabyAIModelOptions o_;
  torch::nn::Sequential image_conv{nullptr}, actor{nullptr}, critic{nullptr};
  torch::nn::MaxPool2d film_pool{nullptr};
  std::vector<FilmBlock> controllers_;
  torch::nn::Embedding word_embedding{nullptr};
  torch::nn::GRU instr_rnn{nullptr};
  torch::nn::LSTMCell memory_rnn{nullptr};
};
TORCH_MODULE(BabyAIModel);

}  // namespace milabench
