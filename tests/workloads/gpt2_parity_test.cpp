// gpt2 against the reference of bench/python/gpt2_reference.py (PyTorch 1.13,
// CPU float32, the tiny config): with the reference's initial weights, our
// logits, loss and every gradient, then the losses of 10 AdamW steps with the
// workload's hyper-parameters and clip; a checkpoint taken mid-way and
// reloaded continues with identical losses. The fixture lives in
// tests/fixtures/gpt2_tiny (regenerate: /usr/bin/python3 bench/python/gpt2_reference.py).
#include <gtest/gtest.h>

#include "models/gpt2.hpp"
#include "parity_fixture.hpp"

using namespace milabench;
using milabench::test::LmFixture;

namespace {

Gpt2Config config(const LmFixture& f) {
  const auto& c = f.index["config"];
  Gpt2Config g;
  g.n_layer = c["n_layer"], g.n_embd = c["n_embd"], g.n_head = c["n_head"];
  g.block_size = c["block_size"], g.vocab_size = c["vocab_size"], g.padded_vocab_size = c["padded_vocab_size"];
  return g;
}

}  // namespace

TEST(Gpt2Parity, LogitsLossAndEveryGradientMatchTheReference) {
  LmFixture f("gpt2");
  Gpt2 m(config(f));
  test::expect_lm_forward_and_gradients_match(f, m);
}

TEST(Gpt2Parity, TenAdamWStepsMatchAndACheckpointResumesIdentically) {
  LmFixture f("gpt2");
  test::expect_lm_adamw_steps_match_and_resume<Gpt2>(f, [&] { return Gpt2(config(f)); });
}
