#include "models/gnmt.hpp"

#include <cmath>
#include <stdexcept>

namespace milabench {

namespace nn = torch::nn;

// Per LSTM layer (PyTorch layout): 4H x in + 4H x H weights + two 4H biases.
static int64_t lstm_params(int64_t in, int64_t h) { return 4 * h * (in + h) + 8 * h; }

int64_t gnmt_parameter_count(const GnmtOptions& o) {
  const int64_t V = o.vocab_size, H = o.hidden_size, L = o.num_layers;
  const int64_t Vc = o.pad_classifier ? (V + 7) / 8 * 8 : V;
  int64_t n = V * H * (o.share_embedding ? 1 : 2);
  n += 2 * lstm_params(H, H) + lstm_params(2 * H, H) + (L - 2) * lstm_params(H, H);  // encoder
  n += lstm_params(H, H) + (2 * H * H + 2 * H + 1);                                  // attention RNN
  n += (L - 1) * lstm_params(2 * H, H) + H * Vc + Vc;                                // decoder
  return n;
}

BahdanauAttentionImpl::BahdanauAttentionImpl(int64_t query_size, int64_t key_size, int64_t units) {
  linear_q = register_module("linear_q", nn::Linear(nn::LinearOptions(query_size, units).bias(false)));
  linear_k = register_module("linear_k", nn::Linear(nn::LinearOptions(key_size, units).bias(false)));
  const double stdv = 1.0 / std::sqrt(double(units));
  linear_att = register_parameter("linear_att", torch::empty({units}).uniform_(-stdv, stdv));
  normalize_scalar = register_parameter("normalize_scalar", torch::full({1}, stdv));
  normalize_bias = register_parameter("normalize_bias", torch::zeros({units}));
}

torch::Tensor BahdanauAttentionImpl::forward(const torch::Tensor& query, const torch::Tensor& keys,
                                             const torch::Tensor& mask) {
  auto k = keys.transpose(0, 1);   // B x Tk x H
  auto q = query.transpose(0, 1);  // B x Tq x H
  const int64_t b = k.size(0), tk = k.size(1), tq = q.size(1), n = linear_att.size(0);
  auto pq = linear_q(q).unsqueeze(2).expand({b, tq, tk, n});
  auto pk = linear_k(k).unsqueeze(1).expand({b, tq, tk, n});
  auto sum_qk = pq + pk + normalize_bias;
  auto att = linear_att.to(torch::kFloat32);
  auto v = (att / att.norm()).to(normalize_scalar.scalar_type()) * normalize_scalar;
  auto scores = torch::tanh(sum_qk).matmul(v);  // B x Tq x Tk
  scores = scores.masked_fill(mask.unsqueeze(1).expand({b, tq, tk}), -65504.0);
  auto weights = torch::softmax(scores, -1);
  return torch::bmm(weights, k).transpose(0, 1);  // Tq x B x H
}

GnmtModelImpl::GnmtModelImpl(const GnmtOptions& o) : opt(o) {
  if (o.num_layers < 2) throw std::invalid_argument("--num-layers must be >= 2 (GNMT: bidirectional + unidirectional)");
  if (o.hidden_size < 1 || o.vocab_size < 5) throw std::invalid_argument("GNMT: hidden size and vocabulary too small");
  const int64_t H = o.hidden_size, V = o.vocab_size;
  auto emb = [&] { return nn::Embedding(nn::EmbeddingOptions(V, H).padding_idx(0)); };
  auto lstm = [](int64_t in, int64_t h, bool bidir = false) {
    return nn::LSTM(nn::LSTMOptions(in, h).num_layers(1).bidirectional(bidir));
  };
  // A shared embedding is registered once so parameters() counts it once.
  enc_embedding = register_module("embedder", emb());
  dec_embedding = o.share_embedding ? enc_embedding : register_module("dec_embedder", emb());
  enc_bidir = register_module("enc_bidir", lstm(H, H, true));
  enc_layers->push_back(lstm(2 * H, H));
  for (int64_t i = 0; i < o.num_layers - 2; ++i) enc_layers->push_back(lstm(H, H));
  register_module("enc_layers", enc_layers);
  dec_att_rnn = register_module("dec_att_rnn", lstm(H, H));
  attention = register_module("attention", BahdanauAttention(H, H, H));
  for (int64_t i = 0; i < o.num_layers - 1; ++i) dec_layers->push_back(lstm(2 * H, H));
  register_module("dec_layers", dec_layers);
  const int64_t Vc = o.pad_classifier ? (V + 7) / 8 * 8 : V;
  classifier = register_module("classifier", nn::Linear(H, Vc));
  dropout = register_module("dropout", nn::Dropout(o.dropout));
}

torch::Tensor GnmtModelImpl::encode(const torch::Tensor& src, const torch::Tensor& src_lengths) {
  auto x = enc_embedding(src);
  auto packed = nn::utils::rnn::pack_padded_sequence(x, src_lengths, /*batch_first=*/false);
  auto out = std::get<0>(enc_bidir->forward_with_packed_input(packed));
  x = std::get<0>(nn::utils::rnn::pad_packed_sequence(out, /*batch_first=*/false, 0.0, src.size(0)));
  x = std::get<0>(enc_layers[0]->as<nn::LSTM>()->forward(dropout(x)));
  for (size_t i = 1; i < enc_layers->size(); ++i) {
    auto residual = x;
    x = std::get<0>(enc_layers[i]->as<nn::LSTM>()->forward(dropout(x))) + residual;
  }
  return x;
}

torch::Tensor GnmtModelImpl::decode(const torch::Tensor& tgt_in, const torch::Tensor& context,
                                    const torch::Tensor& src_lengths) {
  auto steps = torch::arange(context.size(0), torch::TensorOptions().dtype(torch::kLong).device(context.device()));
  auto mask = steps.unsqueeze(0) >= src_lengths.to(context.device()).unsqueeze(1);  // B x Ts
  auto x = std::get<0>(dec_att_rnn->forward(dec_embedding(tgt_in)));
  auto attn = attention(x, context, mask);
  x = std::get<0>(dec_layers[0]->as<nn::LSTM>()->forward(torch::cat({dropout(x), attn}, 2)));
  for (size_t i = 1; i < dec_layers->size(); ++i) {
    auto residual = x;
    x = std::get<0>(dec_layers[i]->as<nn::LSTM>()->forward(torch::cat({dropout(x), attn}, 2))) + residual;
  }
  auto logits = classifier(x);
  if (logits.size(2) != opt.vocab_size) logits = logits.slice(2, 0, opt.vocab_size);
  return logits;
}

torch::Tensor GnmtModelImpl::forward(const torch::Tensor& src, const torch::Tensor& src_lengths,
                                     const torch::Tensor& tgt_in) {
  return decode(tgt_in, encode(src, src_lengths), src_lengths);
}

torch::Tensor label_smoothed_loss(const torch::Tensor& logits, const torch::Tensor& target, int64_t pad,
                                  double smoothing) {
  auto logprobs = torch::log_softmax(logits.to(torch::kFloat32), -1);
  auto keep = target != pad;
  auto nll = -logprobs.gather(-1, target.unsqueeze(1)).squeeze(1);
  auto smooth = -logprobs.mean(-1);
  auto loss = (1.0 - smoothing) * nll + smoothing * smooth;
  return loss.masked_select(keep).sum();
}

}  // namespace milabench
