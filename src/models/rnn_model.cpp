#include "models/rnn_model.hpp"

#include <stdexcept>

namespace milabench {

RNNModelImpl::RNNModelImpl(const RNNModelOptions& o) : o_(o) {
  namespace nn = torch::nn;
  if (o.ntoken < 1 || o.ninp < 1 || o.nhid < 1 || o.nlayers < 1)
    throw std::invalid_argument("RNNModel: ntoken, --emsize, --nhid and --nlayers must be >= 1");
  if (!(o.dropout >= 0 && o.dropout < 1)) throw std::invalid_argument("RNNModel: --dropout must be in [0, 1)");
  if (o.tied && o.nhid != o.ninp)
    throw std::invalid_argument("RNNModel: when using --tied, --nhid must be equal to --emsize");
  drop_ = register_module("drop", nn::Dropout(o.dropout));
  encoder_ = register_module("encoder", nn::Embedding(o.ntoken, o.ninp));
  if (o.rnn_type == "GRU") {
    gru_ = register_module("rnn", nn::GRU(nn::GRUOptions(o.ninp, o.nhid).num_layers(o.nlayers).dropout(o.dropout)));
  } else if (o.rnn_type == "LSTM") {
    lstm_ = register_module("rnn", nn::LSTM(nn::LSTMOptions(o.ninp, o.nhid).num_layers(o.nlayers).dropout(o.dropout)));
  } else if (o.rnn_type == "RNN_TANH" || o.rnn_type == "RNN_RELU") {
    auto opts = nn::RNNOptions(o.ninp, o.nhid).num_layers(o.nlayers).dropout(o.dropout);
    if (o.rnn_type == "RNN_TANH")
      opts.nonlinearity(torch::kTanh);
    else
      opts.nonlinearity(torch::kReLU);
    rnn_ = register_module("rnn", nn::RNN(opts));
  } else {
    throw std::invalid_argument("RNNModel: --model must be one of LSTM, GRU, RNN_TANH, RNN_RELU; got " + o.rnn_type);
  }
  torch::NoGradGuard ng;
  encoder_->weight.uniform_(-0.1, 0.1);
  if (o.tied) {  // "decoder" holds only the bias; the weight is the encoder's
    auto decoder = register_module("decoder", std::make_shared<torch::nn::Module>("Decoder"));
    decoder_weight_ = encoder_->weight;
    decoder_bias_ = decoder->register_parameter("bias", torch::zeros({o.ntoken}));
  } else {
    auto decoder = register_module("decoder", nn::Linear(o.nhid, o.ntoken));
    decoder->weight.uniform_(-0.1, 0.1);
    decoder->bias.zero_();
    decoder_weight_ = decoder->weight;
    decoder_bias_ = decoder->bias;
  }
}

RNNModelImpl::Hidden RNNModelImpl::init_hidden(int64_t bsz, const torch::TensorOptions& opts) const {
  auto z = [&] { return torch::zeros({o_.nlayers, bsz, o_.nhid}, opts); };
  if (lstm_) return {z(), z()};
  return {z()};
}

std::pair<torch::Tensor, RNNModelImpl::Hidden> RNNModelImpl::forward(const torch::Tensor& input, const Hidden& hidden) {
  auto emb = drop_(encoder_(input));
  torch::Tensor output;
  Hidden next;
  if (lstm_) {
    auto [out, hc] = lstm_(emb, std::make_tuple(hidden.at(0), hidden.at(1)));
    output = out;
    next = {std::get<0>(hc), std::get<1>(hc)};
  } else {
    auto [out, h] = gru_ ? gru_(emb, hidden.at(0)) : rnn_(emb, hidden.at(0));
    output = out;
    next = {h};
  }
  output = drop_(output);
  return {torch::nn::functional::linear(output, decoder_weight_, decoder_bias_), next};
}

int64_t rnn_model_parameter_count(const RNNModelOptions& o) {
  const int64_t gates = o.rnn_type == "GRU" ? 3 : o.rnn_type == "LSTM" ? 4 : 1;
  int64_t rnn = 0;
  for (int64_t l = 0; l < o.nlayers; ++l) {
    const int64_t in = l == 0 ? o.ninp : o.nhid;
    rnn += gates * o.nhid * (in + o.nhid) + 2 * gates * o.nhid;  // w_ih, w_hh, b_ih, b_hh
  }
  const int64_t encoder = o.ntoken * o.ninp, decoder = (o.tied ? 0 : o.nhid * o.ntoken) + o.ntoken;
  return encoder + rnn + decoder;
}

}  // namespace milabench
