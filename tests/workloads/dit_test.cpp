// dit (issue 25): the model's shape and DiT's initialisation rules, the
// fixed embeddings, the workload end to end on the tiny config through the
// harness, and the loss canary failing a broken run with kind bad_result.
#include "models/dit.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "models/attention.hpp"
#include "run/run_errors.hpp"
#include "test_support.hpp"
#include "training/transformer_training.hpp"

using namespace milabench;
using milabench::test::run_workload;

namespace {

const std::vector<std::string> kDitTinyFlags = {"--batch-size", "8",   "--input-size", "8", "--patch-size", "2",
                                                "--dim",        "64",  "--depth",      "2", "--heads",      "4",
                                                "--mlp-dim",    "256", "--classes",    "10"};

std::vector<std::string> dit_tiny_flags(const std::vector<std::string>& more) {
  return test::with_flags(kDitTinyFlags, more);
}

double abs_sum(const torch::Tensor& t) { return t.abs().sum().item<double>(); }

}  // namespace

TEST(DitModel, B2HasDitB2sParameterCountAndDitsInitRules) {
  DitConfig c = DitConfig::b2();
  EXPECT_EQ(c.tokens(), 256);
  c.depth = 1;  // one block is enough for the per-tensor rules; the count scales exactly
  torch::manual_seed(0);
  Dit m(c);
  // qkv, proj, fc1, fc2 and the adaLN modulation (768 -> 6 x 768), weights and biases.
  const int64_t block = 18 * 768 * 768 + 15 * 768;
  const int64_t total = count_parameters(*m) + 11 * block;
  std::cout << "DiT-B/2 (learn_sigma = False): " << total << " parameters\n";
  // DiT's count without the frozen pos_embed (a buffer here): 130.3 M.
  EXPECT_EQ(total, 130303504);
  EXPECT_EQ(m->pos_embed.sizes(), (std::vector<int64_t>{1, 256, 768}));
  EXPECT_FALSE(m->named_parameters().contains("pos_embed"));
  auto& b = *m->blocks[0]->as<DitBlockImpl>();
  EXPECT_NEAR(b.qkv->weight.std().item<double>(), std::sqrt(2.0 / (768 + 3 * 768)), 0.0005);  // Xavier
  EXPECT_NEAR(b.fc1->weight.std().item<double>(), std::sqrt(2.0 / (768 + 3072)), 0.0005);
  EXPECT_EQ(abs_sum(b.qkv->bias) + abs_sum(b.fc1->bias) + abs_sum(b.fc2->bias) + abs_sum(b.proj->bias), 0.0);
  EXPECT_EQ(abs_sum(b.ada->weight) + abs_sum(b.ada->bias), 0.0);  // adaLN-Zero
  EXPECT_NEAR(m->x_proj->weight.std().item<double>(), std::sqrt(2.0 / (16 + 768)), 0.001);
  EXPECT_EQ(abs_sum(m->x_proj->bias), 0.0);
  EXPECT_NEAR(m->y_table->weight.std().item<double>(), 0.02, 0.0005);
  EXPECT_EQ(m->y_table->weight.size(0), 1001);  // 1000 classes + the null class
  EXPECT_NEAR(m->t_fc1->weight.std().item<double>(), 0.02, 0.0005);
  EXPECT_NEAR(m->t_fc2->weight.std().item<double>(), 0.02, 0.0005);
  EXPECT_EQ(abs_sum(m->t_fc1->bias), 0.0);
  EXPECT_EQ(abs_sum(m->final_ada->weight) + abs_sum(m->final_linear->weight) + abs_sum(m->final_linear->bias), 0.0);
  EXPECT_EQ(m->final_linear->weight.size(0), 2 * 2 * 4);  // learn_sigma = False: C out channels
  EXPECT_EQ(std::string(attention_kind()), TORCH_VERSION_MAJOR >= 2 ? "sdpa" : "math");
}

TEST(DitModel, TheZeroFinalLayerPredictsZeroSoStepZerosLossIsTheNoisesMeanSquare) {
  torch::manual_seed(1);
  Dit m(DitConfig::tiny());
  DdpmSchedule d(1000, torch::kCPU);
  auto x0 = torch::randn({8, 4, 8, 8}), noise = torch::randn({8, 4, 8, 8});
  auto t = torch::randint(0, 1000, {8}, torch::kLong), y = torch::randint(0, 10, {8}, torch::kLong);
  auto out = m->forward(d.q_sample(x0, t, noise), t, y);
  EXPECT_EQ(out.sizes(), x0.sizes());
  EXPECT_EQ(abs_sum(out), 0.0);
  EXPECT_DOUBLE_EQ(dit_loss(*m, d, x0, t, y, noise).item<double>(), noise.pow(2).mean().item<double>());
}

TEST(DitModel, EmbeddingsScheduleAndTokenDropFollowDit) {
  // Token 0 (row 0, column 0): sin 0 then cos 0 in each half.
  auto pe = sincos_pos_embed_2d(8, 2);  // quarters of 2 channels
  EXPECT_TRUE(torch::allclose(pe[0], torch::tensor({0.f, 0.f, 1.f, 1.f, 0.f, 0.f, 1.f, 1.f})));
  // Token 1 is column 1 of row 0: the first half encodes the column.
  EXPECT_FLOAT_EQ(pe[1][0].item<float>(), float(std::sin(1.0)));
  EXPECT_FLOAT_EQ(pe[1][1].item<float>(), float(std::sin(0.01)));  // 1 / 10000^(1/2)
  EXPECT_FLOAT_EQ(pe[1][4].item<float>(), 0.f);
  EXPECT_FLOAT_EQ(pe[2][4].item<float>(), float(std::sin(1.0)));  // row 1
  auto te = timestep_embedding(torch::tensor({0L, 999L}), 256);
  EXPECT_EQ(te.sizes(), (std::vector<int64_t>{2, 256}));
  EXPECT_EQ(te[0].slice(0, 0, 128).sum().item<double>(), 128.0);  // cos 0
  EXPECT_FLOAT_EQ(te[1][128].item<float>(), float(std::sin(999.0)));
  DdpmSchedule d(1000, torch::kCPU);
  const double abar0 = 1 - 1e-4;
  EXPECT_DOUBLE_EQ(d.sqrt_alphas_cumprod[0].item<double>(), std::sqrt(abar0));
  EXPECT_NEAR(d.sqrt_alphas_cumprod[999].item<double>(), 0.00635, 1e-4);  // DDPM's abar_T ~ 4e-5
  Dit m(DitConfig::tiny());
  auto y = m->token_drop(torch::tensor({3L, 4L, 5L}), torch::tensor({false, true, false}));
  EXPECT_TRUE(torch::equal(y, torch::tensor({3L, 10L, 5L})));
}

TEST(DitModel, FlopsPerImageFollowTheFormula) {
  Dit m(DitConfig::tiny());
  const double S = 16, D = 64;
  const double patch = 4 * 4 * D + D, final_linear = D * 16 + 16;
  const double block_tokens = 12 * D * D + 9 * D, ada = 6 * D * D + 6 * D;
  const double per_image = 256 * D + D + D * D + D + 2 * (ada) + 2 * D * D + 2 * D;
  EXPECT_DOUBLE_EQ(dit_flops_per_image(*m),
                   6 * (patch + 2 * block_tokens + final_linear) * S + 6 * per_image + 12 * 2 * S * S * D);
}

TEST(DitWorkload, TinyConfigCountsImagesPerStepWithMfuNullOnCpuAndPeakMemory) {
  const int64_t steps = 3;
  auto r = run_workload("milarun.models.dit:main", dit_tiny_flags({"--canary-min-steps", "1000"}), steps * 8, "");
  EXPECT_EQ(r.count, steps * 8);
  const auto& m = r.extra["metrics"];
  EXPECT_EQ(m["steps"], steps);
  EXPECT_EQ(m["precision"], "float32");
  EXPECT_TRUE(m["mfu"]["value"].is_null()) << m.dump();
  EXPECT_GT(m["mfu"]["flops_per_unit"].get<double>(), 0);
  EXPECT_EQ(m["peak_memory"]["source"], "peak_rss");
  EXPECT_NEAR(m["last_loss"].get<double>(), 1.0, 0.3);
  EXPECT_EQ(r.extra["dataset"]["name"], "device_latents");
}

TEST(DitWorkload, AModelThatDoesNotLearnFailsTheCanaryAsBadResult) {
  // lr 0: the zero final layer keeps predicting 0, so the loss stays ~1,
  // above the calibrated 0.9.
  try {
    run_workload("dit", dit_tiny_flags({"--lr", "0", "--canary-min-steps", "3"}), 8 * 3, "");
    FAIL() << "the canary let a model that does not learn through";
  } catch (...) {
    const RunFailure f = classify_current_exception();
    EXPECT_EQ(f.kind, FailureKind::BadResult) << f.message;
    EXPECT_NE(f.message.find("does not learn"), std::string::npos) << f.message;
  }
}

TEST(DitWorkload, ABadShapeIsRefusedWithTheFlagsName) {
  try {
    auto args = dit_tiny_flags({});
    args[3] = "9";  // --input-size 9 with --patch-size 2
    run_workload("dit", args, 8, "");
    FAIL() << "a 9-wide latent with 2-wide patches was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--input-size"), std::string::npos) << e.what();
  }
}
