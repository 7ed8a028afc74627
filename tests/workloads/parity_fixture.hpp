// The parity checks of the 2026 transformers against their PyTorch
// references (bench/python/<model>_reference.py, PyTorch 1.13, CPU float32,
// the tiny config), shared by tests/workloads/<model>_parity_test.cpp. A
// fixture folder tests/fixtures/<model>_tiny holds index.json (config,
// parameter table, loss of batch 0, 10 AdamW losses), weights.f32 (initial
// parameters), grads.f32 (their gradients of batch 0's loss), logits0.f32
// (batch 0's first sequence) and tokens.i32. Only for the *_parity_test.cpp
// files (CMake gives them MILABENCH_SOURCE_DIR).
#pragma once
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"
#include "workloads/transformer_training.hpp"

namespace milabench::test {

struct ParityFixture {
  std::string dir, script;
  nlohmann::json index;
  std::vector<float> weights, grads, logits0;
  std::vector<int32_t> tokens;

  // `model`: "gpt2" reads tests/fixtures/gpt2_tiny/. Throws std::runtime_error
  // naming the file and the script that writes it when a file is missing.
  explicit ParityFixture(const std::string& model)
      : dir(std::string(MILABENCH_SOURCE_DIR) + "/tests/fixtures/" + model + "_tiny/"),
        script("bench/python/" + model + "_reference.py") {
    weights = read_raw<float>("weights.f32"), grads = read_raw<float>("grads.f32");
    logits0 = read_raw<float>("logits0.f32"), tokens = read_raw<int32_t>("tokens.i32");
    std::ifstream(dir + "index.json") >> index;
  }
  template <class T>
  std::vector<T> read_raw(const std::string& name) const {
    std::ifstream in(dir + name, std::ios::binary | std::ios::ate);
    if (!in) throw std::runtime_error(dir + name + ": missing; run " + script);
    std::vector<T> v(size_t(in.tellg()) / sizeof(T));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
    return v;
  }
  // Parameter `p` of the index (name, shape, offset) cut out of `all`.
  torch::Tensor slice(const std::vector<float>& all, const nlohmann::json& p) const {
    auto shape = p["shape"].get<std::vector<int64_t>>();
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return torch::from_blob(const_cast<float*>(all.data()) + p["offset"].get<int64_t>(), {n}).clone().view(shape);
  }
  // Copies the reference's initial weights into `m`, which must have every
  // parameter named in the index, and only those.
  void load_into(torch::nn::Module& m) const {
    auto named = m.named_parameters();
    EXPECT_EQ(named.size(), index["params"].size());
    torch::NoGradGuard ng;
    for (const auto& p : index["params"]) {
      auto* t = named.find(p["name"].get<std::string>());
      if (!t) throw std::runtime_error("our model has no parameter " + p["name"].get<std::string>());
      t->copy_(slice(weights, p));
    }
  }
  // Batch k: (inputs, targets), each [B, T] int64.
  std::pair<torch::Tensor, torch::Tensor> batch(int64_t k) const {
    const int64_t B = index["batch_size"], T = index["config"]["block_size"], n = B * T;
    auto buf = torch::from_blob(const_cast<int32_t*>(tokens.data()) + k * n, {n + 1}, torch::kInt).to(torch::kLong);
    return {buf.slice(0, 0, n).view({B, T}), buf.slice(0, 1, n + 1).view({B, T})};
  }
};

// max |a - b| / max |b|.
inline double rel_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>() / std::max(b.abs().max().item<double>(), 1e-30);
}

struct OneThread {
  int saved = torch::get_num_threads();
  OneThread() { torch::set_num_threads(1); }
  ~OneThread() { torch::set_num_threads(saved); }
};

// `m` (a model holder with forward(idx) and loss(logits, targets), loaded
// with the reference's weights): batch 0's logits, loss and every gradient
// within a relative 1e-5; prints the largest differences.
template <class Model>
void expect_forward_and_gradients_match(const ParityFixture& f, Model& m) {
  OneThread one;
  auto [x, y] = f.batch(0);
  torch::Tensor logits = m->forward(x);
  torch::Tensor loss = m->loss(logits, y);
  loss.backward();
  const auto ref_logits = torch::from_blob(const_cast<float*>(f.logits0.data()), {logits.size(1), logits.size(2)});
  const double dl = rel_diff(logits[0], ref_logits);
  std::cout << "logits: max relative difference " << dl << "\n";
  EXPECT_LT(dl, 1e-5);
  const double ref_loss = f.index["loss"];
  std::cout << "loss: " << loss.item<double>() << " (reference " << ref_loss << ")\n";
  EXPECT_NEAR(loss.item<double>(), ref_loss, 1e-5 * ref_loss);
  auto named = m->named_parameters();
  double worst = 0;
  std::string worst_name;
  for (const auto& p : f.index["params"]) {
    const std::string name = p["name"];
    const double d = rel_diff(named[name].grad(), f.slice(f.grads, p));
    if (d > worst) worst = d, worst_name = name;
    EXPECT_LT(d, 1e-5) << name;
  }
  std::cout << "gradients: largest max relative difference " << worst << " (" << worst_name << ")\n";
}

// The reference's 10 AdamW losses (AdamWTrainer with the workload's
// defaults), within a relative 1e-5; a checkpoint taken before step 5 and
// reloaded into fresh objects from `make()` gives the same last 5 losses,
// bit for bit.
template <class Model, class Make>
void expect_adamw_steps_match_and_resume(const ParityFixture& f, const std::string& tag, Make make) {
  OneThread one;
  const auto ref = f.index["losses"].get<std::vector<double>>();
  Model m = make();
  f.load_into(*m);
  AdamWTrainer t(*m, AdamWHyper{}, false);
  TempDir dir(tag + "_ckpt");
  std::vector<double> ours;
  double worst = 0;
  for (int64_t k = 0; k < int64_t(ref.size()); ++k) {
    if (k == 5) torch::save(m, dir.str() + "/model.pt"), torch::save(t.optimizer(), dir.str() + "/opt.pt");
    auto [x, y] = f.batch(k);
    ours.push_back(t.step([&] { return m->loss(m->forward(x), y); }, k).second);
    worst = std::max(worst, std::fabs(ours.back() - ref[size_t(k)]) / ref[size_t(k)]);
    EXPECT_NEAR(ours.back(), ref[size_t(k)], 1e-5 * ref[size_t(k)]) << "step " << k;
  }
  std::cout << "10 AdamW losses: largest relative difference " << worst << " (" << ours.front() << " .. " << ours.back()
            << ")\n";
  EXPECT_LT(ours.back(), ours.front());  // it learns
  Model m2 = make();
  torch::load(m2, dir.str() + "/model.pt");
  AdamWTrainer t2(*m2, AdamWHyper{}, false);
  torch::load(t2.optimizer(), dir.str() + "/opt.pt");
  for (int64_t k = 5; k < int64_t(ref.size()); ++k) {
    auto [x, y] = f.batch(k);
    EXPECT_EQ(t2.step([&] { return m2->loss(m2->forward(x), y); }, k).second, ours[size_t(k)])
        << "step " << k << " after the reload";
  }
}

}  // namespace milabench::test
