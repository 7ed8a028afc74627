// gpt2 against the reference of bench/python/gpt2_reference.py (PyTorch 1.13,
// CPU float32, the tiny config): with the reference's initial weights, our
// logits, loss and every gradient, then the losses of 10 AdamW steps with the
// workload's hyper-parameters and clip; a checkpoint taken mid-way and
// reloaded continues with identical losses. The fixture lives in
// tests/fixtures/gpt2_tiny (regenerate: /usr/bin/python3 bench/python/gpt2_reference.py).
#include <gtest/gtest.h>

#include "models/gpt2.hpp"
#include "parity_fixture.hpp"
#include "test_support.hpp"
#include "workloads/transformer_training.hpp"

using namespace milabench;
using milabench::test::OneThread;

namespace {

struct Fixture : milabench::test::ParityFiles {
  std::vector<float> logits0 = raw<float>("logits0.f32");
  std::vector<int32_t> tokens = raw<int32_t>("tokens.i32");
  Fixture() : ParityFiles("gpt2_tiny", "bench/python/gpt2_reference.py") {}

  Gpt2Config config() const {
    const auto& c = index["config"];
    Gpt2Config g;
    g.n_layer = c["n_layer"], g.n_embd = c["n_embd"], g.n_head = c["n_head"];
    g.block_size = c["block_size"], g.vocab_size = c["vocab_size"], g.padded_vocab_size = c["padded_vocab_size"];
    return g;
  }
  Gpt2 model() const {
    Gpt2 m(config());
    load_weights(*m);
    return m;
  }
  std::pair<torch::Tensor, torch::Tensor> batch(int64_t k) const {
    const int64_t B = index["batch_size"], T = index["config"]["block_size"], n = B * T;
    auto buf = torch::from_blob(const_cast<int32_t*>(tokens.data()) + k * n, {n + 1}, torch::kInt).to(torch::kLong);
    return {buf.slice(0, 0, n).view({B, T}), buf.slice(0, 1, n + 1).view({B, T})};
  }
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
  f.expect_logits_and_loss(logits[0], f.logits0, loss, 1e-5);
  f.expect_gradients(*m, 1e-5);
}

TEST(Gpt2Parity, TenAdamWStepsMatchAndACheckpointResumesIdentically) {
  OneThread one;
  Fixture f;
  milabench::test::expect_adamw_losses_and_resume(
      f, AdamWHyper{}, 1e-5, f.model(), [&] { return Gpt2(f.config()); },
      [&](Gpt2& m, int64_t k) {
        auto [x, y] = f.batch(k);
        return m->loss(m->forward(x), y);
      });
}
