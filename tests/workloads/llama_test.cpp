// llama (issue 25): the model's shape, GQA and initialisation rules, its
// dataset (llm.c's Llama 3 shard variant), the workload end to end on the
// tiny config through the harness, and the loss canary failing a broken run
// with kind bad_result.
#include "models/llama.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "data/dataset.hpp"
#include "data/token_shards.hpp"
#include "lm_checks.hpp"
#include "training/transformer_training.hpp"

using namespace milabench;
using milabench::test::run_workload;
using milabench::test::TempDir;

namespace {

const std::vector<std::string> kLlamaTinyFlags = {
    "--dataset",    "llmc_tiny256", "--batch-size", "4", "--seq-len",   "64", "--n-layer",    "2",
    "--n-embd",     "64",           "--n-head",     "4", "--n-kv-head", "2",  "--ffn-hidden", "192",
    "--vocab-size", "256"};

std::vector<std::string> llama_tiny_flags(const std::vector<std::string>& more) {
  return test::with_flags(kLlamaTinyFlags, more);
}

}  // namespace

TEST(LlamaModel, Llama32OneBHasItsParameterCountGqaShapesAndHfInitRules) {
  // Llama-3.2-1B: 1,235,814,400 parameters (tied head). One block and a
  // small vocabulary are enough for the per-tensor rules; the count scales exactly.
  LlamaConfig c = LlamaConfig::llama_3_2_1b();
  EXPECT_EQ(c.problem(), "");
  c.n_layer = 1, c.vocab_size = 1000;
  torch::manual_seed(0);
  Llama m(c);
  const int64_t n = count_parameters(*m);
  const int64_t block = n - 1000 * 2048 - 2048;
  EXPECT_EQ(block, 2 * 2048 * 2048 + 2 * 2048 * 512 + 3 * 2048 * 8192 + 2 * 2048);
  EXPECT_EQ(128256 * 2048 + 16 * block + 2048, 1235814400);
  auto& b = *m->layers[0]->as<LlamaBlockImpl>();
  EXPECT_EQ(b.k_proj->weight.sizes(), torch::IntArrayRef({512, 2048}));  // 8 KV heads of 64
  EXPECT_EQ(b.q_proj->weight.sizes(), torch::IntArrayRef({2048, 2048}));
  EXPECT_EQ(b.gate_proj->weight.sizes(), torch::IntArrayRef({8192, 2048}));
  for (auto* lin : {&b.q_proj, &b.o_proj, &b.down_proj}) {
    EXPECT_NEAR((*lin)->weight.std().item<double>(), 0.02, 0.0005);
    EXPECT_FALSE((*lin)->bias.defined());
  }
  EXPECT_NEAR(m->embed_tokens->weight.std().item<double>(), 0.02, 0.0005);
  EXPECT_EQ(b.input_layernorm->weight.min().item<double>(), 1.0);
  EXPECT_EQ(m->norm->weight.max().item<double>(), 1.0);
  EXPECT_EQ(decay_params(*m).size(), 1u + 7u);  // embedding + 7 Linear weights; the 3 RMSNorm gains do not decay
  EXPECT_EQ(llama_flops_per_token(LlamaConfig::llama_3_2_1b(), 1235814400), 6.0 * 1235814400 + 6.0 * 16 * 2048 * 2048);
}

TEST(LlamaModel, ConfigProblemsNameTheOption) {
  LlamaConfig c = LlamaConfig::tiny();
  EXPECT_EQ(c.problem(), "");
  c.n_kv_head = 3;
  EXPECT_NE(c.problem().find("--n-kv-head"), std::string::npos);
  c = LlamaConfig::tiny();
  c.n_head = 64;  // head size 1: RoPE needs pairs
  EXPECT_NE(c.problem().find("even"), std::string::npos);
}

TEST(LlamaModel, AttentionIsCausalAndTheHeadIsTied) {
  torch::manual_seed(0);
  Llama m(LlamaConfig::tiny());
  test::expect_causal(m);
  EXPECT_EQ(m->named_parameters().size(), 1u + 2u * 9u + 1u);  // no separate lm_head.weight
}

TEST(LlamaData, TheLlama3DatasetWritesUint32ShardsWithMagic20240801Version7) {
  const DatasetInfo* d = find_dataset("milarun.datasets:llmc_llama3");
  ASSERT_NE(d, nullptr);
  TempDir root("llama3_ds");
  DatasetOptions o;
  o.scale = 0;  // the floor: 64 Ki train tokens per shard
  d->generate(root.str(), o);
  EXPECT_TRUE(d->present(root.str()));
  const ShardFiles f = list_token_shards(root.str() + "/llmc_llama3");
  ASSERT_EQ(f.train.size(), 3u);
  std::ifstream in(f.train[0], std::ios::binary);
  int32_t header[3];
  in.read(reinterpret_cast<char*>(header), sizeof header);
  EXPECT_EQ(header[0], kShardMagicLlama3);
  EXPECT_EQ(header[1], kShardVersionLlama3);
  EXPECT_EQ(header[2], 1 << 16);
  const auto t = read_token_shard(f.train[0], 128256);
  EXPECT_GT(*std::max_element(t.begin(), t.end()), 65535u);  // needs the uint32 variant
}

TEST(LlamaWorkload, TinyConfigCountsBTTokensPerStepWithMfuNullOnCpuAndPeakMemory) {
  const int64_t steps = 3, per_step = 4 * 64;
  auto r = run_workload("milarun.models.llama:main", llama_tiny_flags({"--canary-min-steps", "1000"}), steps * per_step,
                        test::tiny_token_root());
  test::expect_tiny_lm_result(r, steps, per_step);
  EXPECT_EQ(r.extra["metrics"]["config"]["n_kv_head"], 2);
  EXPECT_EQ(r.extra["metrics"]["config"]["rope_scaling"], "none");
}

TEST(LlamaWorkload, BrokenInitialisationFailsTheCanaryAsBadResult) {
  // std 1.0 instead of 0.02: step 0's loss is far from ln(256).
  test::expect_bad_result("llama", llama_tiny_flags({"--init-std", "1.0"}), 4 * 64 * 2, "step 0's loss");
}

TEST(LlamaWorkload, AModelThatDoesNotLearnFailsTheCanaryAsBadResult) {
  // lr 0: the loss stays at ln(256), above the calibrated threshold.
  test::expect_bad_result("llama", llama_tiny_flags({"--lr", "0", "--canary-min-steps", "3"}), 4 * 64 * 3,
                          "does not learn");
}
