#include "models/neumf.hpp"

#include <cmath>
#include <stdexcept>

namespace milabench {

NeuMFImpl::NeuMFImpl(const NeuMFOptions& o) {
  namespace nn = torch::nn;
  if (o.users < 1 || o.items < 1 || o.mf_dim < 1 || o.layers.empty())
    throw std::invalid_argument("NeuMF: users, items, --factors and --layers must be non-empty and >= 1");
  for (int64_t l : o.layers)
    if (l < 1) throw std::invalid_argument("NeuMF: every --layers size must be >= 1");
  if (o.layers[0] % 2 != 0) throw std::invalid_argument("NeuMF: the first --layers size must be even");
  mf_user_ = register_module("mf_user_embed", nn::Embedding(o.users, o.mf_dim));
  mf_item_ = register_module("mf_item_embed", nn::Embedding(o.items, o.mf_dim));
  mlp_user_ = register_module("mlp_user_embed", nn::Embedding(o.users, o.layers[0] / 2));
  mlp_item_ = register_module("mlp_item_embed", nn::Embedding(o.items, o.layers[0] / 2));
  mlp_ = register_module("mlp", nn::ModuleList());
  for (size_t i = 1; i < o.layers.size(); ++i) mlp_->push_back(nn::Linear(o.layers[i - 1], o.layers[i]));
  final_ = register_module("final", nn::Linear(o.layers.back() + o.mf_dim, 1));

  torch::NoGradGuard ng;
  for (auto* e : {&mf_user_, &mf_item_, &mlp_user_, &mlp_item_}) (*e)->weight.normal_(0.0, 0.01);
  for (const auto& m : *mlp_) {
    auto lin = m->as<nn::Linear>();
    double limit = std::sqrt(6.0 / double(lin->options.in_features() + lin->options.out_features()));
    lin->weight.uniform_(-limit, limit);  // Glorot
  }
  double limit = std::sqrt(3.0 / double(final_->options.in_features()));
  final_->weight.uniform_(-limit, limit);  // LeCun
}

torch::Tensor NeuMFImpl::forward(const torch::Tensor& user, const torch::Tensor& item) {
  auto xmf = mf_user_(user) * mf_item_(item);
  auto xmlp = torch::cat({mlp_user_(user), mlp_item_(item)}, 1);
  for (const auto& m : *mlp_) xmlp = torch::relu(m->as<torch::nn::Linear>()->forward(xmlp));
  return final_(torch::cat({xmf, xmlp}, 1));
}

int64_t neumf_parameter_count(const NeuMFOptions& o) {
  int64_t n = (o.users + o.items) * (o.mf_dim + o.layers[0] / 2);
  for (size_t i = 1; i < o.layers.size(); ++i) n += o.layers[i - 1] * o.layers[i] + o.layers[i];
  return n + (o.layers.back() + o.mf_dim) + 1;
}

}  // namespace milabench
