// fast_style: VGG16, TransformerNet and the workload.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "generated_data.hpp"
#include "models/transformer_net.hpp"
#include "models/vgg.hpp"
#include "run/run_app.hpp"
#include "training/session.hpp"

using namespace milabench;
using namespace milabench::test;

TEST(Vgg16, ParameterCountAndLayerNamesMatchTorchvision) {
  // python3: sum(p.numel() for p in torchvision.models.vgg16().parameters()).
  Vgg16 vgg;
  EXPECT_EQ(count_parameters(*vgg), 138357544);
  EXPECT_EQ(count_parameters(*vgg->features), 14714688);
  auto params = vgg->named_parameters();
  EXPECT_EQ(params["features.28.weight"].sizes(), (std::vector<int64_t>{512, 512, 3, 3}));
  EXPECT_EQ(params["classifier.0.weight"].sizes(), (std::vector<int64_t>{4096, 25088}));
  EXPECT_EQ(params["classifier.6.weight"].sizes(), (std::vector<int64_t>{1000, 4096}));
}

TEST(Vgg16, StyleFeaturesAreRelu12To43AndTheClassifierRuns) {
  Vgg16 vgg;
  vgg->eval();
  torch::NoGradGuard no_grad;
  auto x = torch::randn({1, 3, 32, 32});
  auto f = vgg->style_features(x);
  EXPECT_EQ(f[0].sizes(), (std::vector<int64_t>{1, 64, 32, 32}));
  EXPECT_EQ(f[1].sizes(), (std::vector<int64_t>{1, 128, 16, 16}));
  EXPECT_EQ(f[2].sizes(), (std::vector<int64_t>{1, 256, 8, 8}));
  EXPECT_EQ(f[3].sizes(), (std::vector<int64_t>{1, 512, 4, 4}));
  for (const auto& t : f) EXPECT_GE(t.min().item<float>(), 0.0f);  // after a ReLU
  // relu1_2 is the 4th layer: the same as running features[0..3] by hand.
  auto by_hand = torch::relu(vgg->features->ptr(2)->as<torch::nn::Conv2d>()->forward(
      torch::relu(vgg->features->ptr(0)->as<torch::nn::Conv2d>()->forward(x))));
  EXPECT_TRUE(torch::allclose(f[0], by_hand, 1e-5, 1e-5));
  EXPECT_EQ(vgg->forward(x).sizes(), (std::vector<int64_t>{1, 1000}));
}

TEST(TransformerNet, ParameterCountAndImageShapeMatchTheExample) {
  // python3: the example's TransformerNet parameter count.
  TransformerNet net;
  EXPECT_EQ(count_parameters(*net), 1679235);
  torch::NoGradGuard no_grad;
  EXPECT_EQ(net->forward(torch::rand({2, 3, 32, 40}) * 255).sizes(), (std::vector<int64_t>{2, 3, 32, 40}));
}

TEST(FastStyleWorkload, RegisteredAsTheOriginalExperimentWithItsFlags) {
  const WorkloadInfo* w = find_workload("milarun.models.neural_style:main");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->name, "fast_style");
  EXPECT_EQ(w->count_unit, "images");
  EXPECT_EQ(w->default_max_count, 20000);
  auto wl = w->make();
  RunSettings settings;  // the harness's flags (--workers, --cuda, ...) beside the workload's
  auto app_ptr = configure_run_app(*w, *wl, settings);
  CLI::App& app = *app_ptr;
  std::vector<std::string> args = {"--dataset",    "milarun.datasets:fake_imagenet",
                                   "--batch-size", "128",
                                   "--image-size", "64",
                                   "--style-size", "64",
                                   "--workers",    "8"};
  std::reverse(args.begin(), args.end());
  EXPECT_NO_THROW(app.parse(args));
  const std::string help = app.help();
  for (const char* flag : {"--style-image", "--content-weight", "--style-weight", "--lr", "--reduced-decode"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
}

TEST(FastStyleWorkload, TrainsAgainstTheVggLossWithFiniteLoss) {
  const std::string root = generated_dataroot("fake_imagenet", kTinyImagenetScale);
  auto r = run_workload("fast_style",
                        {"--batch-size", "2", "--workers", "2", "--image-size", "32", "--style-size", "32"}, 4, root);
  EXPECT_GE(r.count, 4);
  expect_finite_loss(r);
  EXPECT_GT(r.extra["metrics"]["loss"].get<double>(), 0.0);
  EXPECT_EQ(r.extra["model"]["parameters"], 1679235 + 138357544);
  EXPECT_EQ(r.extra["metrics"]["transformer_parameters"], 1679235);
  EXPECT_EQ(r.extra["dataset"]["name"], "fake_imagenet");
}

// fast_style's original counts len(x): the images really in the batch. Its
// DataLoader does not shuffle, so 25 images in batches of 10 are 10, 10, 5.
TEST(FastStyleWorkload, CountsTheImagesInEachBatch) {
  const std::string root = generated_dataroot("fake_imagenet", kTinyImagenetScale);
  auto r = run_workload("fast_style",
                        {"--batch-size", "10", "--workers", "2", "--image-size", "16", "--style-size", "16"}, 25, root);
  EXPECT_EQ(r.count, 25);
}

TEST(FastStyleWorkload, UnreadableStyleImageNamesTheFile) {
  const std::string root = generated_dataroot("fake_imagenet", kTinyImagenetScale);
  try {
    run_workload("fast_style", {"--workers", "1", "--image-size", "32", "--style-image", "/nonexistent/candy.jpg"}, 2,
                 root);
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--style-image /nonexistent/candy.jpg"), std::string::npos) << e.what();
  }
}

TEST(FastStyleWorkload, WithoutDataSaysHowToMakeIt) {
  TempDir empty("style_nodata");
  try {
    run_workload("fast_style", {"--workers", "1"}, 4, empty.str());
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("milarun dataset fake_imagenet -d " + empty.str()), std::string::npos)
        << e.what();
  }
}
