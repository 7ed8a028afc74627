#include "models/babyai_acmodel.hpp"

#include <stdexcept>

namespace milabench {

namespace nn = torch::nn;

namespace {

// babyai.model.initialize_parameters: N(0, 1) rows scaled to unit norm, zero bias.
void init_linears(nn::Module& m) {
  torch::NoGradGuard ng;
  for (auto& sub : m.modules(/*include_self=*/false)) {  // callable from a constructor
    if (auto* lin = sub->as<nn::Linear>()) {
      lin->weight.normal_(0, 1);
      lin->weight.div_(lin->weight.pow(2).sum(1, true).sqrt());
      if (lin->bias.defined()) lin->bias.zero_();
    }
  }
}

nn::Conv2d babyai_conv(int64_t in, int64_t out, int64_t k, int64_t pad = 0) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, k).padding(pad));
}

}  // namespace

FilmBlockImpl::FilmBlockImpl(int64_t in_features, int64_t out_features, int64_t in_channels, int64_t imm_channels) {
  conv1 = register_module("conv1", babyai_conv(in_channels, imm_channels, 3, 1));
  bn1 = register_module("bn1", nn::BatchNorm2d(imm_channels));
  conv2 = register_module("conv2", babyai_conv(imm_channels, out_features, 3, 1));
  bn2 = register_module("bn2", nn::BatchNorm2d(out_features));
  weight = register_module("weight", nn::Linear(in_features, out_features));
  bias = register_module("bias", nn::Linear(in_features, out_features));
}

torch::Tensor FilmBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& y) {
  auto h = conv2(torch::relu(bn1(conv1(x))));
  auto out = h * weight(y).unsqueeze(2).unsqueeze(3) + bias(y).unsqueeze(2).unsqueeze(3);
  return torch::relu(bn2(out));
}

BabyAIModelImpl::BabyAIModelImpl(const BabyAIModelOptions& o) : o_(o) {
  const bool film = o.arch == "expert_filmcnn";
  if (o.arch == "cnn1") {
    image_conv = register_module(
        "image_conv",
        nn::Sequential(babyai_conv(3, 16, 2), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)),
                       babyai_conv(16, 32, 2), nn::ReLU(), babyai_conv(32, o.image_dim, 2), nn::ReLU()));
  } else if (film) {
    if (!o.use_instr)
      throw std::invalid_argument("--arch expert_filmcnn needs the instruction: drop --no-instr or use --arch cnn1");
    image_conv =
        register_module("image_conv", nn::Sequential(babyai_conv(3, 128, 2, 1), nn::BatchNorm2d(128), nn::ReLU(),
                                                     nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)),
                                                     babyai_conv(128, 128, 3, 1), nn::BatchNorm2d(128), nn::ReLU(),
                                                     nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2))));
    film_pool = register_module("film_pool", nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)));
  } else {
    throw std::invalid_argument("--arch " + o.arch + ": expected expert_filmcnn or cnn1");
  }
  if (o.use_instr) {
    if (o.instr_arch != "gru")
      throw std::invalid_argument("--instr-arch " + o.instr_arch + ": only gru is implemented");
    word_embedding = register_module("word_embedding", nn::Embedding(o.vocab_size, o.instr_dim));
    instr_rnn = register_module("instr_rnn", nn::GRU(nn::GRUOptions(o.instr_dim, o.instr_dim).batch_first(true)));
  }
  if (o.use_memory) memory_rnn = register_module("memory_rnn", nn::LSTMCell(o.image_dim, o.memory_dim));
  // As the original: the embedding is memory_dim wide (image_dim must match
  // without memory), plus the instruction when it is concatenated (cnn1).
  int64_t embedding = o.memory_dim + (o.use_instr && !film ? o.instr_dim : 0);
  if (!o.use_memory && o.image_dim != o.memory_dim)
    throw std::invalid_argument("--no-mem needs --image-dim equal to --memory-dim (as the original)");
  if (film)
    for (int i = 0; i < 2; ++i)
      controllers_.push_back(register_module("FiLM_Controler_" + std::to_string(i),
                                             FilmBlock(o.instr_dim, i == 0 ? 128 : o.image_dim, 128, 128)));
  actor =
      register_module("actor", nn::Sequential(nn::Linear(embedding, 64), nn::Tanh(), nn::Linear(64, o.num_actions)));
  critic = register_module("critic", nn::Sequential(nn::Linear(embedding, 64), nn::Tanh(), nn::Linear(64, 1)));
  init_linears(*this);
}

torch::Tensor BabyAIModelImpl::instr_embedding(const torch::Tensor& instr) {
  auto lengths = (instr != 0).sum(1).clamp_min(1) - 1;
  auto out = std::get<0>(instr_rnn->forward(word_embedding(instr)));  // [B, L, D]
  return out.index({torch::arange(instr.size(0), instr.options()), lengths});
}

ACOutput BabyAIModelImpl::forward(const torch::Tensor& image, const torch::Tensor& instr, const torch::Tensor& memory) {
  torch::Tensor instr_emb;
  if (o_.use_instr) instr_emb = instr_embedding(instr);
  auto x = image.transpose(1, 3).transpose(2, 3);  // [B, 3, x, y]
  x = image_conv->forward(x);
  if (!controllers_.empty()) {
    for (auto& c : controllers_) x = c->forward(x, instr_emb);
    x = torch::relu(film_pool(x));
  }
  x = x.reshape({x.size(0), -1});
  torch::Tensor embedding = x, new_memory = memory;
  if (o_.use_memory) {
    auto hc = memory_rnn->forward(
        x, std::make_tuple(memory.narrow(1, 0, o_.memory_dim), memory.narrow(1, o_.memory_dim, o_.memory_dim)));
    embedding = std::get<0>(hc);
    new_memory = torch::cat({std::get<0>(hc), std::get<1>(hc)}, 1);
  }
  if (o_.use_instr && controllers_.empty()) embedding = torch::cat({embedding, instr_emb}, 1);
  return {torch::log_softmax(actor->forward(embedding), 1), critic->forward(embedding).squeeze(1), new_memory};
}

}  // namespace milabench
