// gpt2 (issue 25): the model's shape and initialisation rules, the workload
// end to end on the tiny config through the harness, and the loss canary
// failing a broken run with kind bad_result.
#include "models/gpt2.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "data/dataset.hpp"
#include "data/token_shards.hpp"
#include "run/run_errors.hpp"
#include "test_support.hpp"
#include "workloads/transformer_training.hpp"

using namespace milabench;
using milabench::test::run_workload;
using milabench::test::TempDir;

namespace {

const std::vector<std::string> kTiny = {
    "--dataset", "llmc_tiny256", "--batch-size", "4", "--seq-len",    "64",  "--n-layer",           "2",
    "--n-embd",  "64",           "--n-head",     "4", "--vocab-size", "256", "--padded-vocab-size", "256"};

std::vector<std::string> tiny(std::vector<std::string> more) {
  auto a = kTiny;
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

// The tiny dataset, made once for the suite (2 % of its size: 80 k tokens).
const std::string& tiny_root() {
  static TempDir dir("gpt2_data");
  static bool made = [] {
    DatasetOptions o;
    o.scale = 0.02;
    find_dataset("llmc_tiny256")->generate(dir.str(), o);
    return true;
  }();
  (void)made;
  return dir.path.native();
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
  EXPECT_EQ(std::string(gpt2_attention_kind()), TORCH_VERSION_MAJOR >= 2 ? "sdpa" : "math");
}

TEST(Gpt2Model, AttentionIsCausal) {
  torch::manual_seed(0);
  Gpt2 m(Gpt2Config::tiny());
  auto x = torch::randint(0, 256, {1, 16}, torch::kLong);
  auto y = x.clone();
  y.index_put_({0, 10}, (x.index({0, 10}) + 1) % 256);
  torch::NoGradGuard ng;
  auto a = m->forward(x), b = m->forward(y);
  EXPECT_TRUE(torch::equal(a.slice(1, 0, 10), b.slice(1, 0, 10)));  // the past does not see the future
  EXPECT_FALSE(torch::allclose(a.slice(1, 10), b.slice(1, 10)));
}

TEST(Gpt2Workload, TinyConfigCountsBTTokensPerStepWithMfuNullOnCpuAndPeakMemory) {
  const int64_t steps = 3, per_step = 4 * 64;
  auto r =
      run_workload("milarun.models.gpt2:main", tiny({"--canary-min-steps", "1000"}), steps * per_step, tiny_root());
  EXPECT_EQ(r.count, steps * per_step);
  const auto& m = r.extra["metrics"];
  EXPECT_EQ(m["steps"], steps);
  EXPECT_EQ(m["precision"], "float32");
  EXPECT_TRUE(m["mfu"]["value"].is_null()) << m.dump();
  EXPECT_NE(m["mfu"]["why"].get<std::string>().find("CPU"), std::string::npos);
  EXPECT_GT(m["mfu"]["flops_per_unit"].get<double>(), 0);
  EXPECT_EQ(m["peak_memory"]["source"], "peak_rss");
  EXPECT_GT(m["peak_memory"]["bytes"].get<int64_t>(), 0);
  EXPECT_NEAR(m["last_loss"].get<double>(), std::log(256.0), 0.3);
  EXPECT_EQ(r.extra["dataset"]["name"], "llmc_tiny256");
}

TEST(Gpt2Workload, BrokenInitialisationFailsTheCanaryAsBadResult) {
  // std 1.0 instead of 0.02: step 0's loss is far from ln(256).
  try {
    run_workload("gpt2", tiny({"--init-std", "1.0"}), 4 * 64 * 2, tiny_root());
    FAIL() << "the canary let a broken initialisation through";
  } catch (...) {
    const RunFailure f = classify_current_exception();
    EXPECT_EQ(f.kind, FailureKind::BadResult) << f.message;
    EXPECT_NE(f.message.find("step 0's loss"), std::string::npos) << f.message;
  }
}

TEST(Gpt2Workload, AModelThatDoesNotLearnFailsTheCanaryAsBadResult) {
  // lr 0: the loss stays at ln(256), above the calibrated 0.75 x ln(V).
  try {
    run_workload("gpt2", tiny({"--lr", "0", "--canary-min-steps", "3"}), 4 * 64 * 3, tiny_root());
    FAIL() << "the canary let a model that does not learn through";
  } catch (...) {
    const RunFailure f = classify_current_exception();
    EXPECT_EQ(f.kind, FailureKind::BadResult) << f.message;
    EXPECT_NE(f.message.find("does not learn"), std::string::npos) << f.message;
  }
}
