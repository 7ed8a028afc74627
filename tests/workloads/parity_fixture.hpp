// A parity fixture written by one of bench/python/*_reference.py (PyTorch
// 1.13, CPU float32): tests/fixtures/<name>/index.json (config, parameter
// table {name, shape, offset}, reference numbers) and little-endian raw
// arrays (weights.f32, grads.f32, ...). Shared by the *_parity_test.cpp
// files; a missing file throws with the script that makes it.
#pragma once
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"
#include "training/transformer_training.hpp"

namespace milabench::test {

struct ParityFiles {
  std::string dir, script;
  nlohmann::json index;
  std::vector<float> weights, grads;

  ParityFiles(const std::string& name, const std::string& reference_script)
      : dir(std::string(MILABENCH_SOURCE_DIR) + "/tests/fixtures/" + name + "/"), script(reference_script) {
    std::ifstream in(dir + "index.json");
    if (!in) throw std::runtime_error(dir + "index.json: missing; run " + script);
    in >> index;
    weights = raw<float>("weights.f32");
    grads = raw<float>("grads.f32");
  }

  template <class T>
  std::vector<T> raw(const std::string& file) const {
    std::ifstream in(dir + file, std::ios::binary | std::ios::ate);
    if (!in) throw std::runtime_error(dir + file + ": missing; run " + script);
    std::vector<T> v(size_t(in.tellg()) / sizeof(T));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
    return v;
  }

  // Parameter `p` of the table (an entry of index["params"]) out of `all`.
  torch::Tensor slice(const std::vector<float>& all, const nlohmann::json& p) const {
    auto shape = p["shape"].get<std::vector<int64_t>>();
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return torch::from_blob(const_cast<float*>(all.data()) + p["offset"].get<int64_t>(), {n}).clone().view(shape);
  }

  // Copies the reference's initial weights into `m`: every parameter named in
  // the table, and only those (a missing or extra name fails the test).
  void load_weights(torch::nn::Module& m) const {
    auto named = m.named_parameters();
    EXPECT_EQ(named.size(), index["params"].size());
    torch::NoGradGuard ng;
    for (const auto& p : index["params"]) {
      auto* t = named.find(p["name"].get<std::string>());
      if (!t) throw std::runtime_error("our model has no parameter " + p["name"].get<std::string>());
      t->copy_(slice(weights, p));
    }
  }

  // Our logits (any shape, `expected` holds as many floats) and loss against
  // the reference's logits and index["loss"], both within `tolerance`
  // relative (the largest logit difference printed).
  void expect_logits_and_loss(const torch::Tensor& logits, std::vector<float>& expected, const torch::Tensor& loss,
                              double tolerance) const;

  // Every gradient of `m` against grads.f32: the largest max relative
  // difference (printed with its parameter), each below `tolerance`.
  void expect_gradients(torch::nn::Module& m, double tolerance) const;
};

// max |a - b| / max |b|.
inline double rel_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>() / std::max(b.abs().max().item<double>(), 1e-30);
}

inline void ParityFiles::expect_logits_and_loss(const torch::Tensor& logits, std::vector<float>& expected,
                                                const torch::Tensor& loss, double tolerance) const {
  ASSERT_EQ(size_t(logits.numel()), expected.size());
  const double dl = rel_diff(logits, torch::from_blob(expected.data(), logits.sizes()));
  std::cout << "logits: max relative difference " << dl << "\n";
  EXPECT_LT(dl, tolerance);
  const double ref = index["loss"].get<double>();
  EXPECT_NEAR(loss.item<double>(), ref, tolerance * std::fabs(ref));
}

inline void ParityFiles::expect_gradients(torch::nn::Module& m, double tolerance) const {
  auto named = m.named_parameters();
  double worst = 0;
  std::string worst_name;
  for (const auto& p : index["params"]) {
    const std::string name = p["name"];
    const double d = rel_diff(named[name].grad(), slice(grads, p));
    if (d > worst) worst = d, worst_name = name;
    EXPECT_LT(d, tolerance) << name;
  }
  std::cout << "gradients: largest max relative difference " << worst << " (" << worst_name << ")\n";
}

// The reference's index["losses"] (AdamW steps with `h`, one batch each)
// against ours, each within `tolerance` relative; the last below the first
// (it learns). A checkpoint of model and optimizer taken before step 5 and
// reloaded into fresh objects continues with the same losses, bit for bit.
// `fresh()` makes a model (Model: a TORCH_MODULE holder) with fresh weights;
// `loss_at(model, k)` is batch k's loss.
template <class Model, class Fresh, class LossAt>
void expect_adamw_losses_and_resume(const ParityFiles& f, const AdamWHyper& h, double tolerance, Model m, Fresh fresh,
                                    LossAt loss_at) {
  const auto ref = f.index["losses"].get<std::vector<double>>();
  ASSERT_GT(ref.size(), 5u);
  AdamWTrainer t(*m, h, false);
  TempDir dir("parity_ckpt");
  std::vector<double> ours;
  double worst = 0;
  for (int64_t k = 0; k < int64_t(ref.size()); ++k) {
    if (k == 5) torch::save(m, dir.str() + "/model.pt"), torch::save(t.optimizer(), dir.str() + "/opt.pt");
    ours.push_back(t.step([&] { return loss_at(m, k); }, k)->second);
    worst = std::max(worst, std::fabs(ours.back() - ref[size_t(k)]) / std::fabs(ref[size_t(k)]));
    EXPECT_NEAR(ours.back(), ref[size_t(k)], tolerance * std::fabs(ref[size_t(k)])) << "step " << k;
  }
  std::cout << ref.size() << " AdamW losses: largest relative difference " << worst << "\n";
  EXPECT_LT(ours.back(), ours.front());  // it learns
  Model m2 = fresh();
  torch::load(m2, dir.str() + "/model.pt");
  AdamWTrainer t2(*m2, h, false);
  torch::load(t2.optimizer(), dir.str() + "/opt.pt");
  for (int64_t k = 5; k < int64_t(ref.size()); ++k)
    EXPECT_EQ(t2.step([&] { return loss_at(m2, k); }, k)->second, ours[size_t(k)])
        << "step " << k << " after the reload";
}

// The language models' fixtures (gpt2, llama: bench/python/lm_fixture.py):
// tokens.i32 and logits0.f32 (batch 0's first sequence) beside the common
// files; batch k = tokens[k*B*T : k*B*T + B*T + 1].
struct LmFixture : ParityFiles {
  std::vector<float> logits0;
  std::vector<int32_t> tokens;
  // `model`: "gpt2" reads tests/fixtures/gpt2_tiny/ (bench/python/gpt2_reference.py writes it).
  explicit LmFixture(const std::string& model)
      : ParityFiles(model + "_tiny", "bench/python/" + model + "_reference.py"),
        logits0(raw<float>("logits0.f32")),
        tokens(raw<int32_t>("tokens.i32")) {}
  // Batch k: (inputs, targets), each [B, T] int64.
  std::pair<torch::Tensor, torch::Tensor> batch(int64_t k) const {
    const int64_t B = index["batch_size"], T = index["config"]["block_size"], n = B * T;
    auto buf = torch::from_blob(const_cast<int32_t*>(tokens.data()) + k * n, {n + 1}, torch::kInt).to(torch::kLong);
    return {buf.slice(0, 0, n).view({B, T}), buf.slice(0, 1, n + 1).view({B, T})};
  }
};

// A language model (forward(idx) -> logits [B, T, V], loss(logits, targets))
// with the fixture's weights: batch 0's logits, loss and every gradient
// within a relative 1e-5 (the largest differences printed).
template <class Model>
void expect_lm_forward_and_gradients_match(LmFixture& f, Model& m) {
  OneThread one;
  f.load_weights(*m);
  auto [x, y] = f.batch(0);
  torch::Tensor logits = m->forward(x);
  torch::Tensor loss = m->loss(logits, y);
  loss.backward();
  f.expect_logits_and_loss(logits[0], f.logits0, loss, 1e-5);
  f.expect_gradients(*m, 1e-5);
}

// The fixture's AdamW losses (the workload's default hyper-parameters) and the
// checkpoint round trip, for a language model made by `make()`.
template <class Model, class Make>
void expect_lm_adamw_steps_match_and_resume(const LmFixture& f, Make make) {
  OneThread one;
  Model m = make();
  f.load_weights(*m);
  expect_adamw_losses_and_resume(f, AdamWHyper{}, 1e-5, m, make, [&](Model& model, int64_t k) {
    auto [x, y] = f.batch(k);
    return model->loss(model->forward(x), y);
  });
}

}  // namespace milabench::test
