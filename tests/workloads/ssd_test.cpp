// SSD300: default boxes, matching, offsets, loss, augmentation, model shape
// and parameter count, and a short CPU run of the workload on a tiny COCO.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>

#include "data/coco.hpp"
#include "data/dataset.hpp"
#include "data/jpeg.hpp"
#include "models/ssd300.hpp"
#include "models/ssd_boxes.hpp"
#include "models/ssd_loss.hpp"
#include "test_support.hpp"
#include "training/ssd_input.hpp"

using namespace milabench;
using namespace milabench::test;

namespace {

constexpr int64_t kBoxes = 8732;

// The offsets SSD learns for `gt` boxes (ltrb) and labels: encode, then the
// loss's location targets. Returns (gloc [1,4,D], glabel [1,D], targets [1,4,D]).
struct Encoded {
  torch::Tensor gloc, glabel;
  int64_t matched;
};
Encoded encode(const std::vector<Box>& gt, const std::vector<int>& labels) {
  const DefaultBoxes& d = ssd300_default_boxes();
  std::vector<float> xywh(size_t(d.size()) * 4), lab(size_t(d.size()));
  const int64_t matched = encode_targets(d, gt, labels, 0.5f, xywh.data(), lab.data());
  auto gloc = torch::from_blob(xywh.data(), {1, d.size(), 4}).clone().transpose(1, 2).contiguous();
  auto glabel = torch::from_blob(lab.data(), {1, d.size()}).to(torch::kInt64);
  return {gloc, glabel, matched};
}

}  // namespace

TEST(SsdDefaultBoxes, Ssd300Has8732InMapThenSizeThenCellOrder) {
  const DefaultBoxes& d = ssd300_default_boxes();
  ASSERT_EQ(d.size(), kBoxes);
  EXPECT_FLOAT_EQ(d.scale_xy, 0.1f);
  EXPECT_FLOAT_EQ(d.scale_wh, 0.2f);
  // Map 0 (38x38, step 8): the first size is 21/300 square, cells row-major.
  EXPECT_NEAR(d.xywh[0][0], 0.5 / 37.5, 1e-6);
  EXPECT_NEAR(d.xywh[0][2], 0.07, 1e-6);
  EXPECT_NEAR(d.xywh[1][0], 1.5 / 37.5, 1e-6);                          // next column
  EXPECT_NEAR(d.xywh[38][1], 1.5 / 37.5, 1e-6);                         // next row
  EXPECT_NEAR(d.xywh[38 * 38][2], std::sqrt(21.0 * 45.0) / 300, 1e-6);  // second size: sqrt(s_k s_k+1)
  EXPECT_NEAR(d.xywh[2 * 38 * 38][2], 0.07 * std::sqrt(2.0), 1e-6);     // aspect 2: wide, then tall
  EXPECT_NEAR(d.xywh[3 * 38 * 38][3], 0.07 * std::sqrt(2.0), 1e-6);
  // Map 1 (19x19, 6 per cell) starts after 4 * 38 * 38 = 5776 boxes.
  EXPECT_NEAR(d.xywh[5776][0], 0.5 / 18.75, 1e-6);
  EXPECT_NEAR(d.xywh[5776][2], 45.0 / 300, 1e-6);
  // Map 5 (1x1): its 4 boxes are the last ones, centred, clamped to 1.
  EXPECT_NEAR(d.xywh[kBoxes - 4][0], 0.5, 1e-6);
  EXPECT_NEAR(d.xywh[kBoxes - 2][2], 1.0, 1e-6);  // 261/300 * sqrt(2) clamped
  for (size_t i = 0; i < d.xywh.size(); ++i)
    for (float v : d.xywh[i]) ASSERT_TRUE(v >= 0 && v <= 1) << i;
  EXPECT_THROW(make_default_boxes(300, {38}, {8, 16}, {21, 45}, {{2}}), std::invalid_argument);
}

TEST(SsdBoxes, IouOfKnownBoxes) {
  EXPECT_FLOAT_EQ(iou_ltrb({0, 0, 1, 1}, {0, 0, 1, 1}), 1.0f);
  EXPECT_FLOAT_EQ(iou_ltrb({0, 0, 1, 1}, {2, 2, 3, 3}), 0.0f);
  EXPECT_NEAR(iou_ltrb({0, 0, 2, 1}, {1, 0, 3, 1}), 1.0 / 3, 1e-6);
  const Box b = {0.1f, 0.2f, 0.5f, 0.9f};
  const Box back = xywh_to_ltrb(ltrb_to_xywh(b));
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(back[size_t(i)], b[size_t(i)], 1e-6);
}

TEST(SsdBoxes, MatchingUsesIouAboveHalfAndGivesEveryBoxItsBestDefault) {
  const DefaultBoxes& d = ssd300_default_boxes();
  // A ground truth equal to default box 5000 (map 0): matched there with its label.
  const Box exact = d.ltrb[5000];
  // A box too thin to reach IoU 0.5 with any default box still claims its best one.
  const Box thin = {0.80f, 0.10f, 0.801f, 0.30f};
  Encoded e = encode({exact, thin}, {7, 3});
  auto glabel = e.glabel[0];
  EXPECT_EQ(glabel[5000].item<int64_t>(), 7);
  EXPECT_EQ((glabel == 3).sum().item<int64_t>(), 1) << "the thin box keeps exactly its best default box";
  EXPECT_EQ(e.matched, (glabel > 0).sum().item<int64_t>());
  // Positives are exactly the default boxes with IoU > 0.5 to `exact` (and the thin box's one).
  int64_t above = 0;
  for (int64_t i = 0; i < d.size(); ++i) above += iou_ltrb(exact, d.ltrb[size_t(i)]) > 0.5f;
  EXPECT_EQ((glabel == 7).sum().item<int64_t>(), above);
  // Background boxes keep their own default box.
  const int64_t bg = (glabel == 0).nonzero()[0][0].item<int64_t>();
  EXPECT_NEAR(e.gloc[0][2][bg].item<float>(), d.xywh[size_t(bg)][2], 1e-6);
  // No ground truth: everything background.
  EXPECT_EQ(encode({}, {}).matched, 0);
}

TEST(SsdBoxes, EncodeThenDecodeGivesTheGroundTruthBack) {
  const std::vector<Box> gt = {{0.1f, 0.1f, 0.4f, 0.5f}, {0.5f, 0.3f, 0.95f, 0.9f}, {0.2f, 0.6f, 0.26f, 0.68f}};
  Encoded e = encode(gt, {1, 2, 3});
  SsdLoss loss(ssd300_default_boxes());
  const auto offsets = loss->location_targets(e.gloc);
  ASSERT_EQ(offsets.sizes(), (std::vector<int64_t>{1, 4, kBoxes}));
  const auto decoded = loss->decode(offsets)[0];  // [D, 4] ltrb
  for (int g = 0; g < 3; ++g) {
    const auto rows = (e.glabel[0] == g + 1).nonzero().flatten();
    ASSERT_GT(rows.numel(), 0);
    for (int64_t k = 0; k < rows.numel(); ++k)
      for (int c = 0; c < 4; ++c)
        EXPECT_NEAR(decoded[rows[k].item<int64_t>()][c].item<float>(), gt[size_t(g)][size_t(c)], 1e-5);
  }
  // Offsets of a positive are ((g - d) / d_wh) / 0.1 and log(g_wh / d_wh) / 0.2.
  const DefaultBoxes& d = ssd300_default_boxes();
  const int64_t i = (e.glabel[0] == 2).nonzero()[0][0].item<int64_t>();
  const Box g = ltrb_to_xywh(gt[1]);
  EXPECT_NEAR(offsets[0][0][i].item<float>(), (g[0] - d.xywh[size_t(i)][0]) / d.xywh[size_t(i)][2] / 0.1, 1e-4);
  EXPECT_NEAR(offsets[0][3][i].item<float>(), std::log(g[3] / d.xywh[size_t(i)][3]) / 0.2, 1e-4);
}

TEST(SsdLoss, HardNegativeMiningKeepsThreeNegativesPerPositive) {
  auto loss = torch::arange(20, torch::kFloat32).unsqueeze(0);  // larger index, larger loss
  auto positive = torch::zeros({1, 20}, torch::kBool);
  positive[0][19] = true;  // the largest loss is a positive: never a negative
  positive[0][3] = true;
  const auto neg = hard_negative_mask(loss, positive)[0];
  EXPECT_EQ(neg.sum().item<int64_t>(), 6);
  for (int i = 13; i <= 18; ++i) EXPECT_TRUE(neg[i].item<bool>()) << i;
  EXPECT_FALSE(neg[19].item<bool>());
  // Ratio capped by the row: 8 positives of 10 want 24 negatives, get at most 10.
  auto many = torch::ones({1, 10}, torch::kBool);
  many[0][0] = many[0][1] = false;
  EXPECT_EQ(hard_negative_mask(torch::rand({1, 10}), many).sum().item<int64_t>(), 10);
  // No positive: no negative either.
  EXPECT_EQ(hard_negative_mask(torch::rand({2, 10}), torch::zeros({2, 10}, torch::kBool)).sum().item<int64_t>(), 0);
}

TEST(SsdLoss, FiniteAndDecreasingWhenFittingOneImage) {
  torch::manual_seed(0);
  Encoded e = encode({{0.1f, 0.1f, 0.4f, 0.5f}, {0.5f, 0.3f, 0.95f, 0.9f}}, {4, 9});
  SsdLoss loss_fn(ssd300_default_boxes());
  // A stand-in for the network: free offsets, and class scores = one bias per
  // class shared by all boxes (as a head's bias is) + a free score per box.
  auto ploc = torch::zeros({1, 4, kBoxes}, torch::requires_grad());
  auto bias = torch::zeros({1, 81, 1}, torch::requires_grad());
  auto per_box = torch::zeros({1, 81, kBoxes}, torch::requires_grad());
  torch::optim::SGD opt({ploc, bias, per_box}, torch::optim::SGDOptions(0.05).momentum(0.9));
  std::vector<double> losses;
  for (int step = 0; step < 40; ++step) {
    auto loss = loss_fn->forward(ploc, bias + per_box, e.gloc, e.glabel);
    ASSERT_TRUE(std::isfinite(loss.item<double>()));
    losses.push_back(loss.item<double>());
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  // Per positive: (itself + 3 negatives) * log(81) of cross-entropy, plus the offsets' smooth-L1.
  EXPECT_GT(losses.front(), 4 * std::log(81.0));
  EXPECT_LT(losses.front(), 4 * std::log(81.0) + 10);
  EXPECT_LT(losses.back(), 0.5 * losses.front());
  // An image without positives adds nothing; the batch mean halves.
  auto empty = encode({}, {});
  auto two = loss_fn->forward(torch::zeros({2, 4, kBoxes}), torch::zeros({2, 81, kBoxes}),
                              torch::cat({e.gloc, empty.gloc}), torch::cat({e.glabel, empty.glabel}));
  auto one = loss_fn->forward(torch::zeros({1, 4, kBoxes}), torch::zeros({1, 81, kBoxes}), e.gloc, e.glabel);
  EXPECT_NEAR(two.item<double>(), one.item<double>() / 2, 1e-4);
}

TEST(SsdAugment, RandomCropKeepsBoxesInsideTheWindow) {
  std::mt19937_64 rng(1);
  int uncropped = 0;
  for (int trial = 0; trial < 200; ++trial) {
    LabelledBoxes b{{{0.1f, 0.1f, 0.3f, 0.4f}, {0.5f, 0.5f, 0.9f, 0.95f}, {0.6f, 0.05f, 0.7f, 0.15f}}, {1, 2, 3}};
    const Box w = ssd_random_crop(b, rng);
    uncropped += w == Box{0, 0, 1, 1};
    ASSERT_FALSE(b.ltrb.empty());
    ASSERT_EQ(b.ltrb.size(), b.labels.size());
    EXPECT_GE(w[2] - w[0], 0.3f - 1e-6f);
    EXPECT_GE(w[3] - w[1], 0.3f - 1e-6f);
    for (const Box& x : b.ltrb)
      for (float v : x) EXPECT_TRUE(v >= -1e-6f && v <= 1 + 1e-6f);
  }
  EXPECT_GT(uncropped, 10) << "one mode in 7 keeps the whole image";
  EXPECT_LT(uncropped, 120);
  LabelledBoxes f{{{0.1f, 0.2f, 0.3f, 0.4f}}, {5}};
  flip_boxes(f);
  EXPECT_NEAR(f.ltrb[0][0], 0.7f, 1e-6);
  EXPECT_NEAR(f.ltrb[0][2], 0.9f, 1e-6);
}

TEST(SsdAugment, TransformPacksImageBoxesAndLabels) {
  std::vector<uint8_t> rgb(640 * 480 * 3, 90);
  JpegCodec codec;
  const std::string jpeg = codec.encode(rgb.data(), 640, 480, 90);
  auto ann = std::make_shared<std::vector<LabelledBoxes>>();
  ann->push_back({{{0.2f, 0.2f, 0.8f, 0.9f}}, {17}});
  SsdTransform t(ann, ssd300_default_boxes());
  const auto shape = t.sample_shape();
  ASSERT_EQ(shape, (std::vector<int64_t>{3 * 300 * 300 + kBoxes * 5}));
  std::vector<float> out(static_cast<size_t>(shape[0]));
  std::mt19937_64 rng(3);
  std::string error;
  EXPECT_FALSE(t.apply(codec, reinterpret_cast<const uint8_t*>(jpeg.data()), jpeg.size(), rng, out.data(), &error));
  ASSERT_TRUE(t.apply_sample(codec, {"x.jpg", 0}, reinterpret_cast<const uint8_t*>(jpeg.data()), jpeg.size(), rng,
                             out.data(), &error))
      << error;
  auto rows = torch::from_blob(out.data(), {1, shape[0]});
  SsdBatch b = unpack_ssd_batch(rows, kBoxes);
  EXPECT_EQ(b.images.sizes(), (std::vector<int64_t>{1, 3, 300, 300}));
  EXPECT_EQ(b.gloc.sizes(), (std::vector<int64_t>{1, 4, kBoxes}));
  EXPECT_LT(b.images.abs().max().item<float>(), 3.0f);  // normalised
  EXPECT_GT((b.glabel == 17).sum().item<int64_t>(), 0);
  EXPECT_EQ(((b.glabel != 17) & (b.glabel != 0)).sum().item<int64_t>(), 0);
  EXPECT_FALSE(t.apply_sample(codec, {"y.jpg", 5}, reinterpret_cast<const uint8_t*>(jpeg.data()), jpeg.size(), rng,
                              out.data(), &error));
}

TEST(Ssd300, ParameterCountAndFeatureMapsMatchTheOriginal) {
  torch::NoGradGuard no_grad;
  Ssd300 model(81);
  int64_t params = 0;
  for (const auto& p : model->parameters()) params += p.numel();
  EXPECT_EQ(params, 19972534);  // the same net built in PyTorch 1.13 + torchvision 0.14
  model->eval();
  const auto x = torch::randn({1, 3, 300, 300});
  const auto maps = model->features(x);
  const std::vector<int64_t> sides = {38, 19, 10, 5, 3, 1}, channels = {256, 512, 512, 256, 256, 256};
  ASSERT_EQ(maps.size(), 6u);
  for (size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(maps[k].size(1), channels[k]) << k;
    EXPECT_EQ(maps[k].size(2), sides[k]) << k;
    EXPECT_EQ(maps[k].size(3), sides[k]) << k;
  }
  auto [loc, conf] = model->forward(x);
  EXPECT_EQ(loc.sizes(), (std::vector<int64_t>{1, 4, kBoxes}));
  EXPECT_EQ(conf.sizes(), (std::vector<int64_t>{1, 81, kBoxes}));
}

TEST(SsdWorkload, TrainsOnATinyCocoWithFiniteLoss) {
  TempDir root("ssd_run");
  DatasetOptions o;
  o.scale = 0.0001;  // 12 train images
  o.threads = 2;
  generate_coco(root.str(), o);
  const WorkloadInfo* info = find_workload("milarun.models.ssd:main");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->name, "ssd");
  EXPECT_EQ(info->count_unit, "images");
  EXPECT_EQ(info->default_max_count, 2500);
  auto r =
      run_workload("ssd", {"--dataset", "milarun.datasets:coco", "--batch-size", "1", "--workers", "1"}, 2, root.str());
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(r.extra["model"]["parameters"], 19972534);
  EXPECT_EQ(r.extra["metrics"]["decode"], "full");
  EXPECT_EQ(r.extra["metrics"]["loader_workers"], 4);  // the original's DataLoader(num_workers=4)
  EXPECT_EQ(r.extra["metrics"]["input_requires_grad"], true);
  EXPECT_EQ(r.extra["dataset"]["synthetic"], true);
  EXPECT_EQ(r.extra["metrics"]["images_skipped"], 0);
  expect_finite_loss(r);
}

TEST(SsdWorkload, MissingCocoAndCheckpointGiveOneClearLine) {
  TempDir root("ssd_none");
  try {
    run_workload("ssd", {"--batch-size", "2", "--workers", "1"}, 2, root.str());
    FAIL() << "no data: expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("milarun dataset coco -d " + root.str()), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_workload("ssd", {"--checkpoint", "model.pt"}, 2, root.str()), std::invalid_argument);
  EXPECT_THROW(run_workload("ssd", {"--dataset", "milarun.datasets:mnist"}, 2, root.str()), std::invalid_argument);
}
