// gpt2 against the reference of bench/python/gpt2_reference.py (PyTorch 1.13,
// CPU float32, the tiny config): with the reference's initial weights, our
// logits, loss and every gradient, then the losses of 10 AdamW steps with the
// workload's hyper-parameters and clip; a checkpoint taken mid-way and
// reloaded continues with identical losses. The fixture lives in
// tests/fixtures/gpt2_tiny (regenerate: /usr/bin/python3 bench/python/gpt2_reference.py).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "models/gpt2.hpp"
#include "test_support.hpp"
#include "workloads/transformer_training.hpp"

using namespace milabench;
using nlohmann::json;

namespace {

const std::string kDir = std::string(MILABENCH_SOURCE_DIR) + "/tests/fixtures/gpt2_tiny/";

template <class T>
std::vector<T> read_raw(const std::string& name) {
  std::ifstream in(kDir + name, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error(kDir + name + ": missing; run bench/python/gpt2_reference.py");
  std::vector<T> v(size_t(in.tellg()) / sizeof(T));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
  return v;
}

struct Fixture {
  json index;
  std::vector<float> weights = read_raw<float>("weights.f32"), grads = read_raw<float>("grads.f32");
  std::vector<float> logits0 = read_raw<float>("logits0.f32");
  std::vector<int32_t> tokens = read_raw<int32_t>("tokens.i32");
  Fixture() { std::ifstream(kDir + "index.json") >> index; }

  Gpt2Config config() const {
    const auto& c = index["config"];
    Gpt2Config g;
    g.n_layer = c["n_layer"], g.n_embd = c["n_embd"], g.n_head = c["n_head"];
    g.block_size = c["block_size"], g.vocab_size = c["vocab_size"], g.padded_vocab_size = c["padded_vocab_size"];
    return g;
  }
  torch::Tensor slice(const std::vector<float>& all, const json& p) const {
    auto shape = p["shape"].get<std::vector<int64_t>>();
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return torch::from_blob(const_cast<float*>(all.data()) + p["offset"].get<int64_t>(), {n}).clone().view(shape);
  }
  // The model with the reference's initial weights (every parameter named in the index, and only those).
  Gpt2 model() const {
    Gpt2 m(config());
    auto named = m->named_parameters();
    EXPECT_EQ(named.size(), index["params"].size());
    torch::NoGradGuard ng;
    for (const auto& p : index["params"]) {
      auto* t = named.find(p["name"].get<std::string>());
      if (!t) throw std::runtime_error("our model has no parameter " + p["name"].get<std::string>());
      t->copy_(slice(weights, p));
    }
    return m;
  }
  std::pair<torch::Tensor, torch::Tensor> batch(int64_t k) const {
    const int64_t B = index["batch_size"], T = index["config"]["block_size"], n = B * T;
    auto buf = torch::from_blob(const_cast<int32_t*>(tokens.data()) + k * n, {n + 1}, torch::kInt).to(torch::kLong);
    return {buf.slice(0, 0, n).view({B, T}), buf.slice(0, 1, n + 1).view({B, T})};
  }
};

// max |a - b| / max |b|, printed by the caller.
double rel_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>() / std::max(b.abs().max().item<double>(), 1e-30);
}

struct OneThread {
  int saved = torch::get_num_threads();
  OneThread() { torch::set_num_threads(1); }
  ~OneThread() { torch::set_num_threads(saved); }
};

}  // namespace

TEST(Gpt2Parity, LogitsLossAndEveryGradientMatchTheReference) {
  OneThread one;
  Fixture f;
  Gpt2 m = f.model();
  auto [x, y] = f.batch(0);
  auto logits = m->forward(x);
  auto loss = m->loss(logits, y);
  loss.backward();
  const auto ref_logits = torch::from_blob(f.logits0.data(), {logits.size(1), logits.size(2)});
  const double dl = rel_diff(logits[0], ref_logits);
  std::cout << "logits: max relative difference " << dl << "\n";
  EXPECT_LT(dl, 1e-5);
  EXPECT_NEAR(loss.item<double>(), f.index["loss"].get<double>(), 1e-5 * f.index["loss"].get<double>());
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

TEST(Gpt2Parity, TenAdamWStepsMatchAndACheckpointResumesIdentically) {
  OneThread one;
  Fixture f;
  const auto ref = f.index["losses"].get<std::vector<double>>();
  Gpt2 m = f.model();
  AdamWTrainer t(*m, AdamWHyper{}, false);
  milabench::test::TempDir dir("gpt2_ckpt");
  std::vector<double> ours;
  double worst = 0;
  for (int64_t k = 0; k < int64_t(ref.size()); ++k) {
    if (k == 5) torch::save(m, dir.str() + "/model.pt"), torch::save(t.optimizer(), dir.str() + "/opt.pt");
    auto [x, y] = f.batch(k);
    ours.push_back(t.step([&] { return m->loss(m->forward(x), y); }, k).second);
    worst = std::max(worst, std::fabs(ours.back() - ref[size_t(k)]) / ref[size_t(k)]);
    EXPECT_NEAR(ours.back(), ref[size_t(k)], 1e-5 * ref[size_t(k)]) << "step " << k;
  }
  std::cout << "10 AdamW losses: largest relative difference " << worst << "\n";
  EXPECT_LT(ours.back(), ours.front());  // it learns
  // Reload the step-5 checkpoint into fresh objects: the same last 5 losses, bit for bit.
  Gpt2 m2(f.config());
  torch::load(m2, dir.str() + "/model.pt");
  AdamWTrainer t2(*m2, AdamWHyper{}, false);
  torch::load(t2.optimizer(), dir.str() + "/opt.pt");
  for (int64_t k = 5; k < int64_t(ref.size()); ++k) {
    auto [x, y] = f.batch(k);
    EXPECT_EQ(t2.step([&] { return m2->loss(m2->forward(x), y); }, k).second, ours[size_t(k)]) << "step " << k << " after the reload";
  }
}
