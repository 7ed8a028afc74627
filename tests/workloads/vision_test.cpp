// Vision input pipeline, ResNet family and the loader/convnet workloads.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "data/dataset.hpp"
#include "data/fake_imagenet.hpp"
#include "data/image_datasets.hpp"
#include "data/image_loader.hpp"
#include "data/jpeg.hpp"
#include "data/manifest.hpp"
#include "generated_data.hpp"
#include "measure/rate_meter.hpp"
#include "models/resnet.hpp"
#include "test_support.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace fs = std::filesystem;
using namespace milabench;
using namespace milabench::test;

namespace {

// One tiny fake_imagenet shared by the tests of this file (generated once).
const std::string& tiny_imagenet_root() {
  static TempDir dir("imagenet");
  static bool made = [] {
    DatasetOptions o;
    o.scale = kTinyImagenetScale;
    o.threads = 2;
    generate_fake_imagenet(dir.str(), o);
    return true;
  }();
  (void)made;
  return dir.path.native();
}

std::string encode_gradient(int w, int h, int quality = 95) {
  std::vector<uint8_t> rgb(size_t(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &rgb[(size_t(y) * w + x) * 3];
      p[0] = uint8_t(255 * x / std::max(1, w - 1));
      p[1] = uint8_t(255 * y / std::max(1, h - 1));
      p[2] = 128;
    }
  JpegCodec codec;
  return codec.encode(rgb.data(), w, h, quality);
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

}  // namespace

// ---- fake_imagenet ---------------------------------------------------------

TEST(FakeImagenet, WritesTheImageFolderLayoutWithScaledCounts) {
  const std::string root = tiny_imagenet_root();
  auto counts = fake_imagenet_counts(kTinyImagenetScale);
  EXPECT_EQ(counts.train, 25);
  EXPECT_EQ(counts.val, 1);
  EXPECT_EQ(counts.test, 1);
  EXPECT_EQ(fake_imagenet_counts(1.0).train, 100000);
  EXPECT_EQ(fake_imagenet_counts(1.0).val, 5000);
  EXPECT_TRUE(fake_imagenet_present(root));
  const fs::path train = fs::path(root) / "ImageNet" / "train";
  int64_t files = 0, dirs = 0;
  for (auto& d : fs::directory_iterator(train)) {
    ++dirs;
    for (auto& f : fs::directory_iterator(d.path())) {
      ++files;
      EXPECT_EQ(f.path().extension(), ".jpeg");
    }
  }
  EXPECT_EQ(dirs, 25);  // image i -> class i % 1000: one per class here
  EXPECT_EQ(files, 25);
  EXPECT_TRUE(fs::exists(train / "24" / "24.jpeg"));
  EXPECT_TRUE(fs::exists(fs::path(root) / "ImageNet" / "val" / "0" / "0.jpeg"));
  EXPECT_TRUE(fs::exists(fs::path(root) / "ImageNet" / "test" / "0" / "0.jpeg"));
  // Each is a 512x512 JPEG that decodes.
  std::vector<uint8_t> bytes;
  std::string err;
  ASSERT_TRUE(read_file_bytes((train / "7" / "7.jpeg").string(), &bytes, &err)) << err;
  JpegCodec codec;
  RgbImage img;
  ASSERT_TRUE(codec.decode(bytes.data(), bytes.size(), {1, 1}, &img, &err)) << err;
  EXPECT_EQ(img.width, 512);
  EXPECT_EQ(img.height, 512);
  auto prov = dataset_provenance(root, "fake_imagenet");
  EXPECT_EQ(prov["synthetic"], true);
  EXPECT_EQ(prov["train"], 25);
  EXPECT_FALSE(prov.contains("stand_in")) << "the original generates fake ImageNet too: not a stand-in";
  // No temporary folder is left behind.
  for (auto& e : fs::directory_iterator(root))
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
}

TEST(FakeImagenet, IsRegisteredUnderTheOriginalName) {
  const DatasetInfo* d = find_dataset("milarun.datasets:fake_imagenet");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->name, "fake_imagenet");
  EXPECT_TRUE(d->present(tiny_imagenet_root()));
  TempDir empty("empty");
  EXPECT_FALSE(d->present(empty.str()));
  DatasetOptions bad;
  bad.scale = 0;
  EXPECT_THROW(generate_fake_imagenet(empty.str(), bad), std::invalid_argument);
}

TEST(ImageFolderScan, SortsClassesAsStringsLikeTorchvision) {
  ImageFolder f = open_image_dataset("fake_imagenet", tiny_imagenet_root(), "train");
  ASSERT_EQ(f.classes.size(), 25u);
  EXPECT_EQ(f.classes[0], "0");
  EXPECT_EQ(f.classes[1], "1");
  EXPECT_EQ(f.classes[2], "10");  // "10" < "2" as strings
  ASSERT_EQ(f.samples.size(), 25u);
  for (const auto& s : f.samples)
    EXPECT_EQ(fs::path(s.path).parent_path().filename().string(), f.classes[size_t(s.label)]);
}

TEST(ImageFolderScan, MissingOrEmptyDatasetNamesTheCommandThatMakesIt) {
  TempDir root("missing");
  try {
    open_image_dataset("milarun.datasets:fake_imagenet", root.str(), "train");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("milarun dataset fake_imagenet -d " + root.str()), std::string::npos)
        << e.what();
  }
  fs::create_directories(root.path / "ImageNet" / "train" / "0");  // a class folder with no image
  try {
    open_image_dataset("fake_imagenet", root.str(), "train");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no .jpeg"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("milarun dataset fake_imagenet"), std::string::npos) << e.what();
  }
  EXPECT_THROW(open_image_dataset("milarun.datasets:mnist", root.str(), "train"), std::invalid_argument);
}

// ---- transforms ------------------------------------------------------------

TEST(RandomResizedCrop, BoxesStayInsideWithTorchvisionAreaAndRatioBounds) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    CropBox b = random_resized_crop_box(640, 480, 0.08, 1.0, 3.0 / 4, 4.0 / 3, rng);
    ASSERT_GE(b.x, 0);
    ASSERT_GE(b.y, 0);
    ASSERT_LE(b.x + b.w, 640);
    ASSERT_LE(b.y + b.h, 480);
    const double frac = double(b.w) * b.h / (640.0 * 480.0), ratio = double(b.w) / b.h;
    ASSERT_GT(frac, 0.07);
    ASSERT_LE(frac, 1.0);
    if (b.w < 640 && b.h < 480) {  // not the central fallback
      ASSERT_GT(ratio, 0.70);
      ASSERT_LT(ratio, 1.40);
    }
  }
  // A very wide image with scale (0.9, 1) never fits: central crop at ratio 4/3.
  CropBox c = random_resized_crop_box(1000, 10, 0.9, 1.0, 3.0 / 4, 4.0 / 3, rng);
  EXPECT_EQ(c.h, 10);
  EXPECT_EQ(c.w, 13);
  EXPECT_EQ(c.x, (1000 - 13) / 2);
}

TEST(RandomResizedCrop, DecodesNearTheTargetSizeWithDctScaling) {
  JpegScale half = smallest_scale_covering(512, 512, 224, 224);
  EXPECT_EQ(half.num * 2, half.denom);  // 1/2: 256 >= 224, 3/8 would give 192
  JpegScale one = smallest_scale_covering(100, 100, 224, 224);
  EXPECT_EQ(one.num, one.denom);
  // Same box resized from a half-size decode and from the full decode: close.
  std::string jpeg = encode_gradient(512, 512);
  JpegCodec codec;
  RgbImage full, scaled;
  std::string err;
  auto* data = reinterpret_cast<const uint8_t*>(jpeg.data());
  ASSERT_TRUE(codec.decode(data, jpeg.size(), {1, 1}, &full, &err)) << err;
  ASSERT_TRUE(codec.decode(data, jpeg.size(), half, &scaled, &err)) << err;
  EXPECT_EQ(scaled.width, 256);
  std::vector<uint8_t> a(32 * 32 * 3), b(32 * 32 * 3);
  CropBox box{100, 60, 300, 260};
  resize_region(full, 512, 512, box, 32, 32, a.data());
  resize_region(scaled, 512, 512, box, 32, 32, b.data());
  double diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff += std::abs(int(a[i]) - int(b[i]));
  EXPECT_LT(diff / a.size(), 2.0);
  // And it is the right region: red grows along x from 255*100/511.
  EXPECT_NEAR(a[0], 255.0 * 105 / 511, 6);
}

// The original decodes every JPEG whole at full resolution (PIL) before its
// crop: that is the default; the DCT-scaled region decode is opt-in.
TEST(RandomResizedCrop, DecodesTheWholeImageAtFullResolutionUnlessReducedIsAsked) {
  EXPECT_EQ(RandomResizedCropFlip::Options{}.decode, Decode::full);
  const std::string jpeg = encode_gradient(512, 384);
  auto* data = reinterpret_cast<const uint8_t*>(jpeg.data());
  JpegCodec codec;
  std::string err;
  RgbImage whole;
  ASSERT_TRUE(codec.decode(data, jpeg.size(), {1, 1}, &whole, &err)) << err;
  RandomResizedCropFlip::Options t;
  t.size = 64;
  t.flip = false;
  for (Decode mode : {Decode::full, Decode::reduced}) {
    t.decode = mode;
    RandomResizedCropFlip transform(t);
    std::mt19937_64 rng(7), replay(7);
    std::vector<float> out(3 * 64 * 64), expected(3 * 64 * 64);
    ASSERT_TRUE(transform.apply(codec, data, jpeg.size(), rng, out.data(), &err)) << err;
    // By hand: the same box from the full-resolution decode.
    const CropBox box = random_resized_crop_box(512, 384, t.scale_lo, t.scale_hi, t.ratio_lo, t.ratio_hi, replay);
    std::vector<uint8_t> rgb(64 * 64 * 3);
    resize_region(whole, 512, 384, box, 64, 64, rgb.data());
    to_normalized_chw(rgb.data(), 64, 64, false, t.mean, t.std, expected.data());
    RgbImage region;
    ASSERT_TRUE(decode_for_crop(codec, data, jpeg.size(), box, 64, 64, mode, &region, &err)) << err;
    if (mode == Decode::full) {
      EXPECT_EQ(out, expected);
      EXPECT_EQ(region.width, 512);
      EXPECT_EQ(region.height, 384);
    } else {
      EXPECT_LT(int64_t(region.width) * region.height, 512 * 384) << "a part, or a reduced scale";
    }
  }
  EXPECT_STREQ(decode_name(Decode::full), "full");
  EXPECT_STREQ(decode_name(Decode::reduced), "reduced");
}

TEST(RandomResizedCrop, NormalisesAndMirrorsLikeToTensorNormalize) {
  const uint8_t rgb[6] = {0, 128, 255, 255, 0, 51};  // 2x1 image
  std::array<float, 3> mean{0.485f, 0.456f, 0.406f}, stdv{0.229f, 0.224f, 0.225f};
  float out[6], mirrored[6];
  to_normalized_chw(rgb, 2, 1, false, mean, stdv, out);
  to_normalized_chw(rgb, 2, 1, true, mean, stdv, mirrored);
  EXPECT_FLOAT_EQ(out[0], (0.0f - 0.485f) / 0.229f);          // R of pixel 0
  EXPECT_FLOAT_EQ(out[1], (1.0f - 0.485f) / 0.229f);          // R of pixel 1
  EXPECT_FLOAT_EQ(out[2], (128 / 255.0f - 0.456f) / 0.224f);  // G plane
  EXPECT_FLOAT_EQ(out[5], (51 / 255.0f - 0.406f) / 0.225f);   // B of pixel 1
  EXPECT_FLOAT_EQ(mirrored[0], out[1]);
  EXPECT_FLOAT_EQ(mirrored[1], out[0]);
}

TEST(JpegCodec, DecodesAGoodImageAfterATruncatedOne) {
  const std::string good = encode_gradient(64, 48), cut = good.substr(0, good.size() / 2);
  JpegCodec codec;
  RgbImage img;
  std::string err;
  JpegHeader h;
  EXPECT_FALSE(codec.header(reinterpret_cast<const uint8_t*>(cut.data()), cut.size(), &h, &err));
  EXPECT_FALSE(err.empty());
  ASSERT_TRUE(codec.decode(reinterpret_cast<const uint8_t*>(good.data()), good.size(), {1, 1}, &img, &err)) << err;
  EXPECT_EQ(img.width, 64);
  EXPECT_EQ(img.height, 48);
}

// Pixels of a region decode against the whole-image decode at the same scale,
// over the scaled pixels [x0, x1) x [y0, y1) of the whole image.
int max_region_difference(const RgbImage& full, const RgbImage& part, int x0, int y0, int x1, int y1) {
  int worst = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x)
      for (int c = 0; c < 3; ++c) {
        const int a = full.pixels[(size_t(y) * full.width + x) * 3 + c];
        const int b = part.pixels[(size_t(y - part.top) * part.width + (x - part.left)) * 3 + c];
        worst = std::max(worst, std::abs(a - b));
      }
  return worst;
}

TEST(JpegCodec, RegionDecodeHasTheFullDecodesPixelsAndCoversTheBox) {
  std::mt19937 rng(3);
  std::vector<uint8_t> rgb(size_t(300) * 200 * 3);
  for (auto& v : rgb) v = uint8_t(rng() % 256);  // noise: every block carries data
  JpegCodec codec;
  const std::string jpeg = codec.encode(rgb.data(), 300, 200, 90);
  auto* data = reinterpret_cast<const uint8_t*>(jpeg.data());
  std::string err;
  for (JpegScale s : {JpegScale{1, 1}, JpegScale{1, 2}, JpegScale{3, 8}}) {
    RgbImage full, part;
    ASSERT_TRUE(codec.decode(data, jpeg.size(), s, &full, &err)) << err;
    for (PixelRect r : {PixelRect{0, 0, 300, 200}, PixelRect{37, 51, 101, 77}, PixelRect{250, 150, 50, 50}}) {
      ASSERT_TRUE(codec.decode_region(data, jpeg.size(), s, r, &part, &err)) << err;
      EXPECT_EQ(part.scaled_width(), full.width);
      EXPECT_EQ(part.scaled_height(), full.height);
      // The decoded part contains the scaled box.
      const int x0 = r.x * full.width / 300, y0 = r.y * full.height / 200;
      const int x1 = (r.x + r.w) * full.width / 300, y1 = (r.y + r.h) * full.height / 200;
      ASSERT_LE(part.left, x0);
      ASSERT_LE(part.top, y0);
      ASSERT_GE(part.left + part.width, x1);
      ASSERT_GE(part.top + part.height, y1);
      EXPECT_EQ(max_region_difference(full, part, x0, y0, x1, y1), 0)
          << s.num << "/" << s.denom << " at " << r.x << "," << r.y;
    }
  }
}

TEST(JpegCodec, RegionDecodeRejectsTruncatedAndCorruptStreamsAndRecovers) {
  const std::string good = encode_gradient(64, 48);
  auto* data = reinterpret_cast<const uint8_t*>(good.data());
  JpegCodec codec;
  RgbImage img;
  std::string err;
  // Cut after most of the data: the top-left region's rows are intact, the
  // missing end-of-image marker still marks the file as truncated.
  const std::string cut = good.substr(0, good.size() - 10);
  EXPECT_FALSE(
      codec.decode_region(reinterpret_cast<const uint8_t*>(cut.data()), cut.size(), {1, 1}, {0, 0, 8, 8}, &img, &err));
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
  err.clear();
  const std::string half = good.substr(0, good.size() / 2);  // rows themselves missing
  EXPECT_FALSE(codec.decode_region(reinterpret_cast<const uint8_t*>(half.data()), half.size(), {1, 1}, {0, 0, 64, 48},
                                   &img, &err));
  EXPECT_FALSE(err.empty());
  const std::string garbage = "this is not a jpeg";
  EXPECT_FALSE(codec.decode_region(reinterpret_cast<const uint8_t*>(garbage.data()), garbage.size(), {1, 1},
                                   {0, 0, 8, 8}, &img, &err));
  ASSERT_TRUE(codec.decode_region(data, good.size(), {1, 1}, {10, 10, 20, 20}, &img, &err)) << err;
  EXPECT_GE(img.width, 20);
}

// ---- loader ----------------------------------------------------------------

TEST(ImageLoader, DeliversNormalisedBatchesOfTheCropSize) {
  ImageFolder f = open_image_dataset("fake_imagenet", tiny_imagenet_root(), "train");
  ImageLoaderOptions o;
  o.batch_size = 4;
  o.workers = 2;
  ImageLoader loader(f.samples, std::make_shared<RandomResizedCropFlip>(), o);
  ImageBatch b = loader.next();
  EXPECT_EQ(b.images.sizes(), (std::vector<int64_t>{4, 3, 224, 224}));
  EXPECT_EQ(b.images.dtype(), torch::kFloat32);
  EXPECT_EQ(b.labels.sizes(), (std::vector<int64_t>{4}));
  EXPECT_EQ(b.labels.dtype(), torch::kInt64);
  // Per channel within [(0 - mean) / std, (1 - mean) / std]; noise spreads over it.
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdv[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) {
    auto ch = b.images.select(1, c);
    EXPECT_GE(ch.min().item<float>(), (0 - mean[c]) / stdv[c] - 1e-5);
    EXPECT_LE(ch.max().item<float>(), (1 - mean[c]) / stdv[c] + 1e-5);
    EXPECT_GT(ch.std().item<float>(), 0.1);
  }
  EXPECT_GE(b.labels.min().item<int64_t>(), 0);
  EXPECT_LT(b.labels.max().item<int64_t>(), 25);
  EXPECT_EQ(loader.skipped(), 0);
}

TEST(ImageLoader, SameSeedSameBatchWhateverTheWorkerCount) {
  ImageFolder f = open_image_dataset("fake_imagenet", tiny_imagenet_root(), "train");
  RandomResizedCropFlip::Options t;
  t.size = 16;
  auto transform = std::make_shared<RandomResizedCropFlip>(t);
  ImageLoaderOptions o;
  o.batch_size = 5;
  o.seed = 42;
  o.workers = 1;
  ImageLoader one(f.samples, transform, o);
  o.workers = 3;
  ImageLoader three(f.samples, transform, o);
  for (int i = 0; i < 3; ++i) {
    ImageBatch a = one.next(), b = three.next();
    EXPECT_TRUE(torch::equal(a.labels, b.labels));
    EXPECT_TRUE(torch::equal(a.images, b.images));
  }
}

TEST(ImageLoader, RecyclesDroppedBatchesAndNeverOverwritesAKeptOne) {
  ImageFolder f = open_image_dataset("fake_imagenet", tiny_imagenet_root(), "train");
  RandomResizedCropFlip::Options t;
  t.size = 16;
  ImageLoaderOptions o;
  o.batch_size = 4;
  o.workers = 2;
  o.prefetch_batches = 2;
  ImageLoader loader(f.samples, std::make_shared<RandomResizedCropFlip>(t), o);
  ImageBatch kept = loader.next();
  const torch::Tensor kept_copy = kept.images.clone();
  std::set<void*> buffers;
  for (int i = 0; i < 12; ++i) buffers.insert(loader.next().images.data_ptr());  // each dropped at once
  EXPECT_LE(buffers.size(), size_t(o.prefetch_batches + 2));                     // reused, not 12 fresh allocations
  EXPECT_EQ(buffers.count(kept.images.data_ptr()), 0u);                          // the kept batch is never refilled
  EXPECT_TRUE(torch::equal(kept.images, kept_copy));
}

TEST(ImageLoader, SkipsAndCountsTruncatedAndCorruptJpegs) {
  TempDir root("corrupt");
  const std::string good = encode_gradient(64, 48);
  auto truncated = root.path / "c" / "truncated.jpeg";
  write_bytes(truncated, good.substr(0, good.size() / 2));
  auto garbage = root.path / "c" / "garbage.jpeg";
  write_bytes(garbage, "this is not a jpeg");
  const fs::path bad[3] = {truncated, garbage, root.path / "c" / "vanished.jpeg"};
  // In order: good, good, bad; x3 — every batch of 3 has one bad image.
  std::vector<ImageSample> samples;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      auto p = root.path / "c" / (std::to_string(2 * i + j) + ".jpeg");
      write_bytes(p, good);
      samples.push_back({p.string(), 0});
    }
    samples.push_back({bad[i].string(), 1});
  }

  RandomResizedCropFlip::Options t;
  t.size = 16;
  ImageLoaderOptions o;
  o.batch_size = 3;
  o.workers = 2;
  o.shuffle = false;
  ImageLoader loader(samples, std::make_shared<RandomResizedCropFlip>(t), o);
  int64_t delivered = 0;
  for (int i = 0; i < 6; ++i) {  // 18 samples = two epochs of 9
    ImageBatch b = loader.next();
    EXPECT_EQ(b.size(), 2) << loader.last_skip();
    EXPECT_EQ(b.labels.eq(1).sum().item<int64_t>(), 0);  // only good images come out
    delivered += b.size();
  }
  EXPECT_EQ(delivered, 12);
  // Workers run ahead of the consumer (prefetch): at least the 6 consumed.
  EXPECT_GE(loader.skipped(), 6);
  EXPECT_FALSE(loader.last_skip().empty());
}

TEST(ImageLoader, ThrowsWhenNoImageDecodes) {
  TempDir root("allbad");
  std::vector<ImageSample> samples;
  for (int i = 0; i < 3; ++i) {
    auto p = root.path / (std::to_string(i) + ".jpeg");
    write_bytes(p, "\xff\xd8 broken");
    samples.push_back({p.string(), 0});
  }
  ImageLoaderOptions o;
  o.batch_size = 2;
  o.workers = 2;
  ImageLoader loader(samples, std::make_shared<RandomResizedCropFlip>(), o);
  try {
    loader.next();
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("could not be decoded"), std::string::npos) << e.what();
  }
}

// Samples 0..n-1 (label = index), each a small JPEG under `root`.
std::vector<ImageSample> numbered_samples(const fs::path& root, int n) {
  const std::string jpeg = encode_gradient(24, 20);
  std::vector<ImageSample> samples;
  for (int i = 0; i < n; ++i) {
    auto p = root / (std::to_string(i) + ".jpeg");
    write_bytes(p, jpeg);
    samples.push_back({p.string(), i});
  }
  return samples;
}

std::shared_ptr<const ImageTransform> tiny_crop() {
  RandomResizedCropFlip::Options t;
  t.size = 8;
  return std::make_shared<RandomResizedCropFlip>(t);
}

TEST(ImageLoader, CutsEachEpochLikeDataLoaderWithAShortLastBatch) {
  TempDir root("epochs");
  const std::vector<ImageSample> samples = numbered_samples(root.path, 7);
  EXPECT_EQ(batches_per_epoch(7, 3), 3);
  EXPECT_EQ(batch_length(7, 3, 2), 1);
  EXPECT_EQ(batch_length(7, 3, 3), 3);  // next epoch
  for (bool shuffle : {false, true}) {
    ImageLoaderOptions o;
    o.batch_size = 3;
    o.workers = 3;
    o.shuffle = shuffle;
    ImageLoader loader(samples, tiny_crop(), o);
    for (int epoch = 0; epoch < 3; ++epoch) {
      std::vector<int64_t> seen;
      for (int64_t expected : {3, 3, 1}) {
        ImageBatch b = loader.next();
        ASSERT_EQ(b.size(), expected) << "epoch " << epoch << (shuffle ? " shuffled" : "");
        EXPECT_EQ(b.images.size(0), b.labels.size(0));
        for (int64_t j = 0; j < b.size(); ++j) seen.push_back(b.labels[j].item<int64_t>());
      }
      if (!shuffle) EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6})) << "each sample once per epoch";
    }
  }
}

// issue 17: one image and a batch of 16 on 8 workers crashed the workers.
TEST(ImageLoader, DatasetSmallerThanABatchGivesOneShortBatchPerEpoch) {
  TempDir root("smaller");
  for (int n : {1, 3}) {
    ImageLoaderOptions o;
    o.batch_size = 16;
    o.workers = 8;
    ImageLoader loader(numbered_samples(root.path, n), tiny_crop(), o);
    for (int i = 0; i < 20; ++i) ASSERT_EQ(loader.next().size(), n);
  }
}

TEST(ImageLoader, RejectsAnEmptyDataset) {
  EXPECT_THROW(ImageLoader({}, tiny_crop(), ImageLoaderOptions{}), std::invalid_argument);
}

// ---- ResNet ----------------------------------------------------------------

TEST(ResNet, ParameterCountsMatchTorchvision) {
  // torchvision 0.14 (python3-torchvision): sum(p.numel() for p in models.<arch>().parameters()).
  const std::vector<std::pair<std::string, int64_t>> expected = {{"resnet18", 11689512},
                                                                 {"resnet34", 21797672},
                                                                 {"resnet50", 25557032},
                                                                 {"resnet101", 44549160},
                                                                 {"resnet152", 60192808}};
  for (const auto& [arch, count] : expected) {
    ResNet net(arch);
    int64_t n = 0;
    for (const auto& p : net->parameters()) n += p.numel();
    EXPECT_EQ(n, count) << arch;
  }
  EXPECT_THROW(ResNet("resnet19"), std::invalid_argument);
}

TEST(ResNet, UsesTorchvisionLayerNamesAndShapes) {
  ResNet net("resnet50");
  auto params = net->named_parameters();
  EXPECT_EQ(params["layer2.0.conv2.weight"].sizes(), (std::vector<int64_t>{128, 128, 3, 3}));  // v1.5 stride
  EXPECT_EQ(params["layer1.0.downsample.0.weight"].sizes(), (std::vector<int64_t>{256, 64, 1, 1}));
  EXPECT_EQ(params["fc.weight"].sizes(), (std::vector<int64_t>{1000, 2048}));
  ResNet small("resnet18", 10);
  torch::NoGradGuard g;
  small->eval();
  EXPECT_EQ(small->forward(torch::randn({2, 3, 64, 64})).sizes(), (std::vector<int64_t>{2, 10}));
}

// ---- workloads -------------------------------------------------------------

TEST(VisionWorkloads, RegisteredUnderTheOriginalExperimentNames) {
  const WorkloadInfo* l = find_workload("milarun.models.loader:main");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->name, "loader");
  EXPECT_EQ(l->count_unit, "images");
  const WorkloadInfo* c = find_workload("milarun.models.convnet:conv_simple");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->name, "convnet");
}

// The original counts it.set_count(batch_size) per step, also for the epoch's
// short last batch: 25 images in batches of 10 are 10, 10, 5, counted 10 each.
TEST(VisionWorkloads, LoaderCountsTheBatchSizePerStepAndDecodesInFull) {
  auto r = run_workload(
      "loader",
      {"--dataset", "milarun.datasets:fake_imagenet", "--batch-size", "10", "--workers", "2", "--image-size", "32"}, 30,
      tiny_imagenet_root());
  EXPECT_EQ(r.count, 30);
  EXPECT_EQ(r.extra["metrics"]["images_skipped"], 0);
  EXPECT_EQ(r.extra["metrics"]["decode"], "full");
  EXPECT_FALSE(r.extra["metrics"].contains("shortcuts"));
  EXPECT_EQ(r.extra["dataset"]["synthetic"], true);
  EXPECT_EQ(r.extra["dataset"]["images"], 25);
}

TEST(VisionWorkloads, ReducedDecodeIsOptInAndRecordedAsAShortcut) {
  auto r = run_workload("loader",
                        {"--dataset", "milarun.datasets:fake_imagenet", "--batch-size", "5", "--workers", "2",
                         "--image-size", "32", "--reduced-decode"},
                        10, tiny_imagenet_root());
  EXPECT_EQ(r.count, 10);
  EXPECT_EQ(r.extra["metrics"]["decode"], "reduced");
  EXPECT_EQ(r.extra["metrics"]["shortcuts"], nlohmann::json::array({"reduced_decode"}));
}

TEST(VisionWorkloads, ConvnetTrainsResnet18WithFiniteLoss) {
  auto r = run_workload("convnet",
                        {"--arch", "resnet18", "--batch-size", "4", "--lr", "0.1", "--workers", "2", "--image-size",
                         "32", "--dataset", "milarun.datasets:fake_imagenet"},
                        8, tiny_imagenet_root());
  EXPECT_EQ(r.count, 8);  // --batch-size per step
  EXPECT_TRUE(std::isfinite(r.extra["metrics"]["loss"].get<double>())) << r.extra.dump();
  EXPECT_EQ(r.extra["metrics"]["decode"], "full");
  EXPECT_EQ(r.extra["model"]["parameters"], 11689512);
  EXPECT_EQ(r.extra["metrics"]["precision"], "float32");
}

TEST(VisionWorkloads, ConvnetHalfUsesBfloat16AutocastOnCpu) {
  auto r = run_workload("convnet",
                        {"--arch", "resnet18", "--batch-size", "4", "--workers", "2", "--image-size", "32", "--half"},
                        8, tiny_imagenet_root());
  EXPECT_GE(r.count, 8);
  EXPECT_TRUE(std::isfinite(r.extra["metrics"]["loss"].get<double>())) << r.extra.dump();
  EXPECT_EQ(r.extra["metrics"]["precision"], "bfloat16-autocast");
}

TEST(VisionWorkloads, ConvnetWithoutDataSaysHowToMakeIt) {
  TempDir empty("nodata");
  try {
    run_workload("convnet", {"--workers", "1"}, 4, empty.str());
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("milarun dataset fake_imagenet"), std::string::npos) << e.what();
  }
}
