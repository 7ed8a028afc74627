// RNNModel of PyTorch's word_language_model example (the original's wlm):
// Dropout -> Embedding(ntoken, ninp) -> GRU | LSTM | RNN_TANH | RNN_RELU
// (nlayers, inter-layer dropout) -> Dropout -> Linear(nhid, ntoken), with the
// example's initialisation (encoder and decoder weights U(-0.1, 0.1), decoder
// bias 0). `tied` shares the encoder's weight with the decoder (nhid must equal
// ninp); shared weights are counted once in parameters(), as in PyTorch.
#pragma once
#include <torch/torch.h>

#include <string>
#include <vector>

namespace milabench {

struct RNNModelOptions {
  // Defaults: the original wlm's (the profiles pass GRU, 656, 656, 0.5).
  std::string rnn_type = "LSTM";  // GRU, LSTM, RNN_TANH, RNN_RELU
  int64_t ntoken = 0, ninp = 200, nhid = 200, nlayers = 2;
  double dropout = 0.2;
  bool tied = false;
};

class RNNModelImpl : public torch::nn::Module {
 public:
  // Throws std::invalid_argument for an unknown rnn_type, non-positive sizes
  // or `tied` with nhid != ninp.
  explicit RNNModelImpl(const RNNModelOptions& o);

  // Hidden state: {h} for GRU/RNN, {h, c} for LSTM; each [nlayers, bsz, nhid].
  using Hidden = std::vector<torch::Tensor>;
  Hidden init_hidden(int64_t bsz, const torch::TensorOptions& opts) const;

  // input [seq, bsz] int64 -> (logits [seq, bsz, ntoken], next hidden).
  std::pair<torch::Tensor, Hidden> forward(const torch::Tensor& input, const Hidden& hidden);

  const RNNModelOptions& options() const { return o_; }

 private:
  RNNModelOptions o_;
  torch::nn::Dropout drop_{nullptr};
  torch::nn::Embedding encoder_{nullptr};
  torch::nn::GRU gru_{nullptr};
  torch::nn::LSTM lstm_{nullptr};
  torch::nn::RNN rnn_{nullptr};
  torch::Tensor decoder_weight_, decoder_bias_;  // weight aliases encoder's when tied
};
TORCH_MODULE(RNNModel);

// Number of parameters of RNNModel for `o` by the formula (for tests/docs).
int64_t rnn_model_parameter_count(const RNNModelOptions& o);

}  // namespace milabench
