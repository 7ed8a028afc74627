// gpt2 (issue 25): the model's shape and initialisation rules, the workload
// end to end on the tiny config through the harness, and the loss canary
// failing a broken run with kind bad_result.
#include "models/gpt2.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "lm_checks.hpp"
#include "models/attention.hpp"
#include "training/transformer_training.hpp"

using namespace milabench;
using milabench::test::run_workload;

namespace {

const std::vector<std::string> kGpt2TinyFlags = {
    "--dataset", "llmc_tiny256", "--batch-size", "4", "--seq-len",    "64",  "--n-layer",           "2",
    "--n-embd",  "64",           "--n-head",     "4", "--vocab-size", "256", "--padded-vocab-size", "256"};

std::vector<std::string> gpt2_tiny_flags(const std::vector<std::string>& more) {
  return test::with_flags(kGpt2TinyFlags, more);
}

}  // namespace

TEST(Gpt2Model, D12HasGpt2SmallsParameterCountAndLlmcsInitRules) {
  // 124,475,904 with the padded 50304-row embedding (llm.c's count).
  Gpt2Config c = Gpt2Config::d12();
  c.n_layer = 1;  // one block is enough for the per-tensor rules; the count scales exactly
  torch::manual_seed(0);
  Gpt2 m(c);
  int64_t n = 0;
  for (const auto& p : m->parameters()) n += p.numel();
  const int64_t block = 12 * 768 * 768 + 13 * 768;  // qkv, proj, fc, proj weights + biases + 2 LayerNorms
  EXPECT_EQ(n + 11 * block, 124475904);
  auto& b = *m->h[0]->as<Gpt2BlockImpl>();
  EXPECT_NEAR(b.c_attn->weight.std().item<double>(), 0.02, 0.0005);
  EXPECT_NEAR(b.attn_proj->weight.std().item<double>(), 0.02 / std::sqrt(2.0), 0.0005);
  EXPECT_NEAR(b.mlp_proj->weight.std().item<double>(), 0.02 / std::sqrt(2.0), 0.0005);
  EXPECT_EQ(b.c_fc->bias.abs().sum().item<double>(), 0.0);
  EXPECT_NEAR(m->wpe->weight.std().item<double>(), 0.02, 0.0005);
  EXPECT_EQ(m->wte->weight.slice(0, 50257).abs().sum().item<double>(), 0.0);  // padded rows
  EXPECT_NEAR(m->wte->weight.slice(0, 0, 50257).std().item<double>(), 0.02, 0.0005);
  EXPECT_EQ(decay_params(*m).size(), 2u + 4u);  // wte, wpe, 4 Linear weights
  EXPECT_EQ(std::string(attention_kind()), TORCH_VERSION_MAJOR >= 2 ? "sdpa" : "math");
}

TEST(Gpt2Model, AttentionIsCausal) {
  torch::manual_seed(0);
  Gpt2 m(Gpt2Config::tiny());
  test::expect_causal(m);
}

TEST(Gpt2Workload, TinyConfigCountsBTTokensPerStepWithMfuNullOnCpuAndPeakMemory) {
  const int64_t steps = 3, per_step = 4 * 64;
  auto r = run_workload("milarun.models.gpt2:main", gpt2_tiny_flags({"--canary-min-steps", "1000"}), steps * per_step,
                        test::tiny_token_root());
  test::expect_tiny_lm_result(r, steps, per_step);
}

TEST(Gpt2Workload, BrokenInitialisationFailsTheCanaryAsBadResult) {
  // std 1.0 instead of 0.02: step 0's loss is far from ln(256).
  test::expect_bad_result("gpt2", gpt2_tiny_flags({"--init-std", "1.0"}), 4 * 64 * 2, "step 0's loss");
}

TEST(Gpt2Workload, AModelThatDoesNotLearnFailsTheCanaryAsBadResult) {
  // lr 0: the loss stays at ln(256), above the calibrated 0.75 x ln(V).
  test::expect_bad_result("gpt2", gpt2_tiny_flags({"--lr", "0", "--canary-min-steps", "3"}), 4 * 64 * 3,
                          "does not learn");
}
