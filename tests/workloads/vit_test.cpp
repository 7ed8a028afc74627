// vit (issue 25): the model's shape and initialisation rules, the workload
// end to end on the tiny config through the harness, and the loss canary
// failing a broken run with kind bad_result.
#include "models/vit.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "models/attention.hpp"
#include "run/run_errors.hpp"
#include "test_support.hpp"
#include "training/transformer_training.hpp"

using namespace milabench;
using milabench::test::run_workload;

namespace {

const std::vector<std::string> kVitTinyFlags = {"--batch-size", "8",   "--image-size", "32", "--patch-size", "8",
                                                "--dim",        "64",  "--depth",      "2",  "--heads",      "4",
                                                "--mlp-dim",    "256", "--classes",    "10"};

std::vector<std::string> vit_tiny_flags(const std::vector<std::string>& more) {
  return test::with_flags(kVitTinyFlags, more);
}

}  // namespace

TEST(VitModel, B16HasVitBase16sParameterCountAndTorchvisionsInitRules) {
  VitConfig c = VitConfig::b16();
  EXPECT_EQ(c.tokens(), 197);
  c.depth = 1;  // one block is enough for the per-tensor rules; the count scales exactly
  torch::manual_seed(0);
  Vit m(c);
  const int64_t block = 12 * 768 * 768 + 13 * 768;         // qkv, proj, fc1, fc2 weights + biases + 2 LayerNorms
  EXPECT_EQ(count_parameters(*m) + 11 * block, 86567656);  // torchvision's vit_b_16
  auto& b = *m->blocks[0]->as<VitBlockImpl>();
  EXPECT_NEAR(b.qkv->weight.std().item<double>(), std::sqrt(2.0 / (768 + 3 * 768)), 0.0005);  // Xavier
  EXPECT_EQ(b.qkv->bias.abs().sum().item<double>(), 0.0);
  EXPECT_LT(b.fc1->bias.abs().max().item<double>(), 1e-4);
  EXPECT_NEAR(m->pos_embed.std().item<double>(), 0.02, 0.0005);
  EXPECT_NEAR(m->patch_embed->weight.std().item<double>(), std::sqrt(1.0 / 768), 0.001);
  EXPECT_EQ(m->cls_token.abs().sum().item<double>(), 0.0);
  EXPECT_EQ(m->head->weight.abs().sum().item<double>(), 0.0);  // step 0's loss is ln(classes)
  EXPECT_EQ(std::string(attention_kind()), TORCH_VERSION_MAJOR >= 2 ? "sdpa" : "math");
}

TEST(VitModel, FlopsPerImageFollowTheFormula) {
  Vit m(VitConfig::tiny());
  // 16 patches + the class token; patch conv 3*8*8*64+64, blocks 2 x (12*64*64 + 13*64 + 2*... ) counted by module.
  const double S = 17, patch = 3 * 64 * 64 + 64, head = 64 * 10 + 10;
  const double blocks = double(count_parameters(*m)) - patch - head - 64 - 17 * 64 - 2 * 64;
  EXPECT_DOUBLE_EQ(vit_flops_per_image(*m), 6 * patch * 16 + 6 * blocks * S + 6 * head + 12 * 2 * S * S * 64);
}

TEST(VitWorkload, TinyConfigCountsImagesPerStepWithMfuNullOnCpuAndPeakMemory) {
  const int64_t steps = 3;
  auto r = run_workload("milarun.models.vit:main", vit_tiny_flags({"--canary-min-steps", "1000"}), steps * 8, "");
  EXPECT_EQ(r.count, steps * 8);
  const auto& m = r.extra["metrics"];
  EXPECT_EQ(m["steps"], steps);
  EXPECT_EQ(m["precision"], "float32");
  EXPECT_TRUE(m["mfu"]["value"].is_null()) << m.dump();
  EXPECT_GT(m["mfu"]["flops_per_unit"].get<double>(), 0);
  EXPECT_EQ(m["peak_memory"]["source"], "peak_rss");
  EXPECT_NEAR(m["last_loss"].get<double>(), std::log(10.0), 0.3);
  EXPECT_EQ(r.extra["dataset"]["name"], "device_images");
}

TEST(VitWorkload, AModelThatDoesNotLearnFailsTheCanaryAsBadResult) {
  // lr 0: the loss stays at ln(10) (the head starts at 0), above the
  // calibrated 0.5 x ln(classes).
  try {
    run_workload("vit", vit_tiny_flags({"--lr", "0", "--canary-min-steps", "3"}), 8 * 3, "");
    FAIL() << "the canary let a model that does not learn through";
  } catch (...) {
    const RunFailure f = classify_current_exception();
    EXPECT_EQ(f.kind, FailureKind::BadResult) << f.message;
    EXPECT_NE(f.message.find("does not learn"), std::string::npos) << f.message;
  }
}

TEST(VitWorkload, ABadShapeIsRefusedWithTheFlagsName) {
  try {
    auto args = vit_tiny_flags({});
    args[3] = "30";  // --image-size 30 with --patch-size 8
    run_workload("vit", args, 8, "");
    FAIL() << "a 30-pixel image with 8-pixel patches was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--image-size"), std::string::npos) << e.what();
  }
}
