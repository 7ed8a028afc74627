// reso: the bsds500 dataset, the luma input/target transform, the sub-pixel
// network and the workload.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "data/bsds500.hpp"
#include "data/center_crop_transforms.hpp"
#include "data/image_datasets.hpp"
#include "data/jpeg.hpp"
#include "data/manifest.hpp"
#include "generated_data.hpp"
#include "models/subpixel.hpp"
#include "run/run_app.hpp"

namespace fs = std::filesystem;
using namespace milabench;
using namespace milabench::test;

namespace {

constexpr double kTinyBsds = 0.02;  // 4 train, 2 val, 4 test

std::string solid_jpeg(int w, int h, uint8_t r, uint8_t g, uint8_t b) {
  std::vector<uint8_t> rgb(size_t(w) * h * 3);
  for (size_t i = 0; i < rgb.size(); i += 3) {
    rgb[i] = r;
    rgb[i + 1] = g;
    rgb[i + 2] = b;
  }
  JpegCodec codec;
  return codec.encode(rgb.data(), w, h, 100);
}

}  // namespace

TEST(Bsds500, WritesTheRealLayoutWithScaledCounts) {
  EXPECT_EQ(bsds500_counts(1.0).train, 200);
  EXPECT_EQ(bsds500_counts(1.0).val, 100);
  EXPECT_EQ(bsds500_counts(1.0).test, 200);
  const std::string root = generated_dataroot("bsds500", kTinyBsds);
  EXPECT_TRUE(bsds500_present(root));
  const fs::path images = fs::path(root) / "bsds500" / "BSR" / "BSDS500" / "data" / "images";
  const std::pair<const char*, int> expected[] = {{"train", 4}, {"val", 2}, {"test", 4}};
  JpegCodec codec;
  int landscape = 0, portrait = 0;
  for (const auto& [split, count] : expected) {
    ImageFolder f = scan_bsds500(root, split);
    EXPECT_EQ(int(f.samples.size()), count) << split;
    for (const auto& s : f.samples) {
      EXPECT_EQ(fs::path(s.path).parent_path(), images / split);
      EXPECT_EQ(fs::path(s.path).extension(), ".jpg");
      std::vector<uint8_t> bytes;
      std::string err;
      JpegHeader h;
      ASSERT_TRUE(read_file_bytes(s.path, &bytes, &err)) << err;
      ASSERT_TRUE(codec.header(bytes.data(), bytes.size(), &h, &err)) << err;
      if (h.width == 481 && h.height == 321)
        ++landscape;
      else if (h.width == 321 && h.height == 481)
        ++portrait;
      else
        ADD_FAILURE() << s.path << " is " << h.width << "x" << h.height;
    }
  }
  EXPECT_GT(landscape, 0);
  EXPECT_GT(portrait, 0);
  auto prov = dataset_provenance(root, "bsds500");
  EXPECT_EQ(prov["synthetic"], true);
  EXPECT_EQ(prov["train"], 4);
  for (auto& e : fs::directory_iterator(root))
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
}

TEST(Bsds500, RegisteredUnderTheProfilesDatasetName) {
  const DatasetInfo* d = find_dataset("milarun.datasets:bsds500_reso");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->name, "bsds500");
  EXPECT_EQ(find_dataset("bsds500"), d);
  EXPECT_EQ(find_dataset("bsds500_reso"), d);
  EXPECT_EQ(image_dataset_name("milarun.datasets:bsds500_reso"), "bsds500");
  TempDir empty("bsds_empty");
  EXPECT_FALSE(d->present(empty.str()));
  DatasetOptions bad;
  bad.scale = 1.5;
  EXPECT_THROW(generate_bsds500(empty.str(), bad), std::invalid_argument);
}

TEST(Bsds500, MissingOrEmptySplitNamesTheCommandThatMakesIt) {
  TempDir root("bsds_missing");
  const std::string command = "milarun dataset bsds500 -d " + root.str();
  try {
    open_image_dataset("milarun.datasets:bsds500_reso", root.str(), "train");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(command), std::string::npos) << e.what();
  }
  fs::create_directories(bsds500_split_dir(root.str(), "train"));
  std::ofstream(bsds500_split_dir(root.str(), "train") + "/notes.txt") << "not an image";
  try {
    scan_bsds500(root.str(), "train");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds no .jpg"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(command), std::string::npos) << e.what();
  }
}

TEST(LumaSuperResolutionPair, TargetIsTheCentreCropLumaAndInputItsDownscale) {
  // Solid (200, 100, 50): PIL's Y = round(0.299*200 + 0.587*100 + 0.114*50) = 124.
  const std::string jpeg = solid_jpeg(40, 30, 200, 100, 50);
  LumaSuperResolutionPair t(17, 2);  // crop rounded down to 16, input 8x8
  EXPECT_EQ(t.crop(), 16);
  EXPECT_EQ(t.low(), 8);
  EXPECT_EQ(t.sample_shape(), (std::vector<int64_t>{8 * 8 + 16 * 16}));
  std::vector<float> out(8 * 8 + 16 * 16);
  JpegCodec codec;
  std::mt19937_64 rng(1);
  std::string err;
  ASSERT_TRUE(t.apply(codec, reinterpret_cast<const uint8_t*>(jpeg.data()), jpeg.size(), rng, out.data(), &err)) << err;
  for (float v : out) EXPECT_NEAR(v, 124 / 255.0, 2 / 255.0);
  // A source smaller than the crop is zero-padded around the centre, as CenterCrop pads.
  const std::string tiny = solid_jpeg(8, 8, 255, 255, 255);
  ASSERT_TRUE(t.apply(codec, reinterpret_cast<const uint8_t*>(tiny.data()), tiny.size(), rng, out.data(), &err));
  const float* target = out.data() + 64;
  EXPECT_EQ(target[0], 0.0f);                        // corner: padding
  EXPECT_NEAR(target[8 * 16 + 8], 1.0f, 2 / 255.0);  // centre: the image
  EXPECT_THROW(LumaSuperResolutionPair(1, 2), std::invalid_argument);
  EXPECT_THROW(LumaSuperResolutionPair(256, 0), std::invalid_argument);
  // Corrupt bytes are reported, not thrown.
  EXPECT_FALSE(t.apply(codec, reinterpret_cast<const uint8_t*>("nope"), 4, rng, out.data(), &err));
}

TEST(SubPixelNet, ParameterCountsAndPixelShuffleShapes) {
  // python3: the example's Net(upscale_factor) parameter count.
  const std::vector<std::pair<int64_t, int64_t>> expected_counts = {{2, 58212}, {3, 59657}};
  for (auto [r, expected] : expected_counts) {
    EXPECT_EQ(count_parameters(*SubPixelNet(r)), expected) << r;
  }
  SubPixelNet net(2);
  torch::NoGradGuard no_grad;
  EXPECT_EQ(net->forward(torch::rand({2, 1, 16, 12})).sizes(), (std::vector<int64_t>{2, 1, 32, 24}));
  // Orthogonal init: the flattened 64 x 25 first-layer weight has orthonormal columns x sqrt(2).
  auto w = net->conv1->weight.view({64, 25});
  EXPECT_TRUE(torch::allclose(w.t().mm(w), 2.0 * torch::eye(25), 1e-4, 1e-4));
  EXPECT_THROW(SubPixelNet(0), std::invalid_argument);
}

TEST(ResoWorkload, RegisteredAsTheOriginalExperimentWithItsFlags) {
  const WorkloadInfo* w = find_workload("milarun.models.subpixel:main");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->name, "reso");
  EXPECT_EQ(w->count_unit, "images");
  EXPECT_EQ(w->default_max_count, 20000);
  auto wl = w->make();
  RunSettings settings;  // the harness's flags (--workers, --cuda, ...) beside the workload's
  auto app_ptr = configure_run_app(*w, *wl, settings);
  CLI::App& app = *app_ptr;
  std::vector<std::string> args = {"--dataset",
                                   "milarun.datasets:bsds500_reso",
                                   "--batch-size",
                                   "64",
                                   "--lr",
                                   "0.1",
                                   "--upscale-factor",
                                   "2",
                                   "--workers",
                                   "8"};
  std::reverse(args.begin(), args.end());
  EXPECT_NO_THROW(app.parse(args));
  EXPECT_EQ(app.help().find("--reduced-decode"), std::string::npos);  // reso always decodes whole
}

TEST(ResoWorkload, TrainsOnBsdsCropsWithFiniteLoss) {
  const std::string root = generated_dataroot("bsds500", kTinyBsds);
  auto r = run_workload("reso", {"--batch-size", "2", "--workers", "2"}, 6, root);  // the original's 256 crop
  EXPECT_GE(r.count, 6);
  expect_finite_loss(r);
  EXPECT_EQ(r.extra["model"]["parameters"], 58212);
  EXPECT_EQ(r.extra["dataset"]["name"], "bsds500");
  EXPECT_EQ(r.extra["dataset"]["synthetic"], true);
  EXPECT_EQ(r.extra["dataset"]["images"], 4);
}

// The original counts it.set_count(batch_size) per step, also for the epoch's
// short last batch. Issue 17: one train image with --batch-size 16 on 8
// workers crashed; now each step trains the one image and counts 16.
TEST(ResoWorkload, CountsTheBatchSizePerStepAlsoForAShortBatch) {
  const std::string root = generated_dataroot("bsds500", 0.002);  // one train image
  auto r = run_workload("reso", {"--batch-size", "16", "--workers", "8", "--crop-size", "32"}, 40, root);
  EXPECT_EQ(r.count, 48);  // three steps of one image, 16 each
  EXPECT_EQ(r.extra["dataset"]["images"], 1);
  expect_finite_loss(r);
  EXPECT_EQ(r.extra["metrics"]["decode"], "full");
}

TEST(ResoWorkload, WithoutDataSaysHowToMakeIt) {
  TempDir empty("reso_nodata");
  try {
    run_workload("reso", {"--workers", "1"}, 4, empty.str());
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("milarun dataset bsds500 -d " + empty.str()), std::string::npos) << e.what();
  }
}
