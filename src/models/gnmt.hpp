// GNMT v2 as in the original milabench rnn_translator (MLPerf v0.5 reference,
// NVIDIA's seq2seq): time-major (T x B) tensors throughout.
//  encoder: shared embedding -> bidirectional LSTM -> LSTM(2H->H) -> (L-2)
//           LSTM(H->H) with residual connections from the 3rd layer; dropout
//           before every layer after the first.
//  decoder: embedding -> LSTM(H->H) whose outputs query a normalized Bahdanau
//           attention over the encoder outputs; the attention context is
//           concatenated to the input of each of the (L-1) LSTM(2H->H) layers
//           (residual from the 2nd of them), then a Linear(H->V) classifier.
#pragma once
#include <torch/torch.h>

#include <cstdint>

namespace milabench {

struct GnmtOptions {
  int64_t vocab_size = 32317;
  int64_t hidden_size = 1024;
  int64_t num_layers = 4;      // per side; >= 2
  double dropout = 0.2;
  bool share_embedding = true;
  bool pad_classifier = false; // --math fp16: classifier rows padded to a multiple of 8
};

// Number of parameters of GnmtModel(opt), by formula (see gnmt.cpp).
int64_t gnmt_parameter_count(const GnmtOptions& opt);

struct BahdanauAttentionImpl : torch::nn::Module {
  BahdanauAttentionImpl(int64_t query_size, int64_t key_size, int64_t units);
  // query [Tq, B, H], keys [Tk, B, H], mask [B, Tk] (true = padding)
  // -> context [Tq, B, H].
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& keys, const torch::Tensor& mask);

  torch::nn::Linear linear_q{nullptr}, linear_k{nullptr};
  torch::Tensor linear_att, normalize_scalar, normalize_bias;
};
TORCH_MODULE(BahdanauAttention);

struct GnmtModelImpl : torch::nn::Module {
  explicit GnmtModelImpl(const GnmtOptions& opt);
  // src [Ts, B] ids, src_lengths [B] int64 on the CPU sorted descending,
  // tgt_in [Tt, B] ids (BOS ... without the last) -> logits [Tt, B, vocab].
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& src_lengths, const torch::Tensor& tgt_in);
  torch::Tensor encode(const torch::Tensor& src, const torch::Tensor& src_lengths);
  torch::Tensor decode(const torch::Tensor& tgt_in, const torch::Tensor& context, const torch::Tensor& src_lengths);

  GnmtOptions opt;
  torch::nn::Embedding enc_embedding{nullptr}, dec_embedding{nullptr};
  torch::nn::LSTM enc_bidir{nullptr};
  torch::nn::ModuleList enc_layers, dec_layers;  // LSTMs
  torch::nn::LSTM dec_att_rnn{nullptr};
  BahdanauAttention attention{nullptr};
  torch::nn::Linear classifier{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(GnmtModel);

// The original's LabelSmoothing criterion: sum over non-PAD targets of
// (1-s) * nll + s * mean(-log p) over the vocabulary. logits [N, V] (any
// float type; computed in fp32), target [N].
torch::Tensor label_smoothed_loss(const torch::Tensor& logits, const torch::Tensor& target, int64_t pad,
                                  double smoothing);

}  // namespace milabench
