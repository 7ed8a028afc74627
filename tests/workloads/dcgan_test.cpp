// dcgan: DCGAN networks, the Resize + CenterCrop transform, the workload.
#include "models/dcgan.hpp"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "data/center_crop_transforms.hpp"
#include "data/image_datasets.hpp"
#include "data/image_loader.hpp"
#include "generated_data.hpp"
#include "run/run_app.hpp"
#include "training/session.hpp"

using namespace milabench;
using namespace milabench::test;

TEST(DcganModels, ParameterCountsMatchPytorchExamples) {
  // python3: the example's Generator / Discriminator with nz=100, ngf=ndf=64, nc=3.
  DcganGenerator g(100, 64, 3);
  DcganDiscriminator d(3, 64);
  EXPECT_EQ(count_parameters(*g), 3576704);
  EXPECT_EQ(count_parameters(*d), 2765568);
}

TEST(DcganModels, GeneratorMakes64x64ImagesTheDiscriminatorScores) {
  DcganGenerator g(100, 8, 3);
  DcganDiscriminator d(3, 8);
  torch::NoGradGuard no_grad;
  auto images = g->forward(torch::randn({2, 100, 1, 1}));
  EXPECT_EQ(images.sizes(), (std::vector<int64_t>{2, 3, 64, 64}));
  EXPECT_LE(images.abs().max().item<float>(), 1.0f);  // tanh
  auto p = d->forward(images);
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{2}));
  EXPECT_GT(p.min().item<float>(), 0.0f);
  EXPECT_LT(p.max().item<float>(), 1.0f);
  // weights_init: convolutions N(0, 0.02), BatchNorm weight N(1, 0.02).
  auto params = g->named_parameters();
  EXPECT_NEAR(params["main.0.weight"].std().item<float>(), 0.02, 0.002);
  EXPECT_NEAR(params["main.1.weight"].mean().item<float>(), 1.0, 0.01);
  EXPECT_EQ(params["main.1.bias"].abs().sum().item<float>(), 0.0f);
}

TEST(ResizeCenterCrop, KeepsTheRegionTorchvisionResizeThenCenterCropKeeps) {
  // 640x480 -> Resize(64) = 85x64, CenterCrop(64) from x = round(10.5) = 10:
  // in source pixels x = 10 * 480 / 64 = 75, a 480x480 square.
  CropBox b = resize_center_crop_box(640, 480, 64);
  EXPECT_EQ(b.x, 75);
  EXPECT_EQ(b.y, 0);
  EXPECT_EQ(b.w, 480);
  EXPECT_EQ(b.h, 480);
  // 321x481 -> Resize(256) = 256x383, crop from y = round(63.5) = 64 -> 80.25.
  b = resize_center_crop_box(321, 481, 256);
  EXPECT_EQ(b.x, 0);
  EXPECT_EQ(b.y, 80);
  EXPECT_EQ(b.w, 321);
  EXPECT_EQ(b.h, 321);
  // A square keeps everything.
  b = resize_center_crop_box(512, 512, 64);
  EXPECT_EQ(b.w, 512);
  EXPECT_EQ(b.h, 512);
  ResizeCenterCrop::Options bad;
  bad.size = 0;
  EXPECT_THROW(ResizeCenterCrop{bad}, std::invalid_argument);
}

TEST(ResizeCenterCrop, DeliversHalfNormalisedImagesInMinusOneToOne) {
  const std::string root = generated_dataroot("fake_imagenet", kTinyImagenetScale);
  ImageFolder f = open_image_dataset("fake_imagenet", root, "train");
  ImageLoaderOptions o;
  o.batch_size = 3;
  o.workers = 2;
  ImageLoader loader(f.samples, std::make_shared<ResizeCenterCrop>(ResizeCenterCrop::Options{}), o);
  ImageBatch b = loader.next();
  EXPECT_EQ(b.images.sizes(), (std::vector<int64_t>{3, 3, 64, 64}));
  EXPECT_GE(b.images.min().item<float>(), -1.0f);
  EXPECT_LE(b.images.max().item<float>(), 1.0f);
  // 512x512 uniform noise averaged down 8x8: std ~ 0.577 / 8, centred on 0.
  EXPECT_NEAR(b.images.std().item<float>(), 0.577f / 8, 0.02f);
  EXPECT_NEAR(b.images.mean().item<float>(), 0.0f, 0.02f);
}

TEST(DcganWorkload, RegisteredAsTheOriginalExperimentWithItsFlags) {
  const WorkloadInfo* w = find_workload("milarun.models.dcgan:main");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->name, "dcgan");
  EXPECT_EQ(w->count_unit, "images");
  EXPECT_EQ(w->default_max_count, 20000);
  auto wl = w->make();
  RunSettings settings;  // the harness's flags (--workers, --cuda, ...) beside the workload's
  auto app_ptr = configure_run_app(*w, *wl, settings);
  CLI::App& app = *app_ptr;
  // standard.json's arguments (--cuda and --max-count belong to the harness).
  std::vector<std::string> args = {
      "--dataset", "milarun.datasets:fake_imagenet", "--batch-size", "128", "--image-size", "64", "--workers", "8"};
  std::reverse(args.begin(), args.end());
  EXPECT_NO_THROW(app.parse(args));
  const std::string help = app.help();
  for (const char* flag :
       {"--nz", "--ngf", "--ndf", "--lr", "--beta1", "--ngpu", "--saved-netG", "--saved-netD", "--reduced-decode"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  EXPECT_NE(help.find("0.0002"), std::string::npos) << help;
}

TEST(DcganWorkload, TrainsBothNetworksWithFiniteLoss) {
  const std::string root = generated_dataroot("fake_imagenet", kTinyImagenetScale);
  auto r = run_workload("dcgan", {"--batch-size", "4", "--workers", "2", "--ngf", "16", "--ndf", "16"}, 12, root);
  EXPECT_GE(r.count, 12);
  expect_finite_loss(r);
  EXPECT_EQ(r.extra["dataset"]["name"], "fake_imagenet");
  EXPECT_EQ(r.extra["dataset"]["synthetic"], true);
  // ngf = ndf = 16: generator + discriminator, as counted by python3 for these widths.
  EXPECT_EQ(r.extra["model"]["parameters"], 378080 + 175296) << r.extra.dump();
  EXPECT_EQ(r.extra["metrics"]["generator_parameters"], 378080);
}

// The original counts real_batch_size (= --batch-size on one device) per
// step, also for the epoch's short last batch: 25 images in batches of 10
// are steps of 10, 10 and 5 images, each counted 10.
TEST(DcganWorkload, CountsTheBatchSizePerStepAlsoForTheShortLastBatch) {
  const std::string root = generated_dataroot("fake_imagenet", kTinyImagenetScale);
  auto r = run_workload("dcgan", {"--batch-size", "10", "--workers", "2", "--ngf", "8", "--ndf", "8"}, 30, root);
  EXPECT_EQ(r.count, 30);
  for (const char* read : {"errD_real", "errD_fake", "errG", "D_x", "D_G_z1", "D_G_z2"})
    EXPECT_TRUE(r.extra["metrics"].contains(read)) << read << " in " << r.extra.dump();
  EXPECT_EQ(r.extra["metrics"]["decode"], "full");
}

TEST(DcganWorkload, RejectsWhatTheNetworksCannotDo) {
  const std::string root = generated_dataroot("fake_imagenet", kTinyImagenetScale);
  EXPECT_THROW(run_workload("dcgan", {"--image-size", "32", "--workers", "1"}, 4, root), std::invalid_argument);
  EXPECT_THROW(run_workload("dcgan", {"--ngpu", "2", "--workers", "1"}, 4, root), std::invalid_argument);
}

TEST(DcganWorkload, WithoutDataSaysHowToMakeIt) {
  TempDir empty("dcgan_nodata");
  try {
    run_workload("dcgan", {"--workers", "1"}, 4, empty.str());
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("milarun dataset fake_imagenet -d " + empty.str()), std::string::npos)
        << e.what();
  }
}
