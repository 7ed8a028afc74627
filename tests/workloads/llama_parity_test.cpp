// llama against the reference of bench/python/llama_reference.py (a Llama 3
// decoder written from the published definition; PyTorch 1.13, CPU float32,
// the tiny config: 2 layers, 64 channels, 4 heads / 2 KV heads, SwiGLU 192,
// T 64, V 256): with the reference's initial weights, our logits, loss and
// every gradient, then the losses of 10 AdamW steps with the workload's
// hyper-parameters and clip; a checkpoint taken mid-way and reloaded
// continues with identical losses. The fixture lives in
// tests/fixtures/llama_tiny (regenerate: /usr/bin/python3 bench/python/llama_reference.py).
#include <gtest/gtest.h>

#include "models/llama.hpp"
#include "parity_fixture.hpp"

using namespace milabench;
using milabench::test::LmFixture;

namespace {

LlamaConfig config(const LmFixture& f) {
  const auto& c = f.index["config"];
  LlamaConfig l;
  l.n_layer = c["n_layer"], l.n_embd = c["n_embd"], l.n_head = c["n_head"], l.n_kv_head = c["n_kv_head"];
  l.ffn_hidden = c["ffn_hidden"], l.block_size = c["block_size"], l.vocab_size = c["vocab_size"];
  l.norm_eps = c["norm_eps"], l.rope_theta = c["rope_theta"];
  return l;
}

}  // namespace

TEST(LlamaParity, LogitsLossAndEveryGradientMatchTheReference) {
  LmFixture f("llama");
  Llama m(config(f));
  test::expect_lm_forward_and_gradients_match(f, m);
}

TEST(LlamaParity, TenAdamWStepsMatchAndACheckpointResumesIdentically) {
  LmFixture f("llama");
  test::expect_lm_adamw_steps_match_and_resume<Llama>(f, [&] { return Llama(config(f)); });
}
