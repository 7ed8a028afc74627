#include "training/ssd_input.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "data/coco.hpp"
#include "data/dataset.hpp"
#include "data/manifest.hpp"
#include "training/image_input.hpp"
#include "training/session.hpp"

namespace milabench {
namespace {

uint8_t to_byte(float v) { return uint8_t(std::clamp(std::lround(v), 0L, 255L)); }

float luma(const uint8_t* p) { return (299.0f * p[0] + 587.0f * p[1] + 114.0f * p[2]) / 1000.0f; }

}  // namespace

void color_jitter(uint8_t* rgb, int width, int height, float brightness, float contrast, float saturation, float hue,
                  std::mt19937_64& rng) {
  const size_t pixels = size_t(width) * height;
  auto factor = [&rng](float spread) { return std::uniform_real_distribution<float>(1 - spread, 1 + spread)(rng); };
  std::array<int, 4> order = {0, 1, 2, 3};
  std::shuffle(order.begin(), order.end(), rng);
  for (int op : order) {
    if (op == 0) {  // brightness: scale
      const float b = factor(brightness);
      for (size_t i = 0; i < pixels * 3; ++i) rgb[i] = to_byte(rgb[i] * b);
    } else if (op == 1) {  // contrast: blend with the mean grey level
      const float c = factor(contrast);
      double sum = 0;
      for (size_t i = 0; i < pixels; ++i) sum += std::lround(luma(rgb + 3 * i));
      const float mean = float(sum / double(pixels));
      for (size_t i = 0; i < pixels * 3; ++i) rgb[i] = to_byte(c * rgb[i] + (1 - c) * mean);
    } else if (op == 2) {  // saturation: blend with the grey image
      const float s = factor(saturation);
      for (size_t i = 0; i < pixels; ++i) {
        const float grey = float(std::lround(luma(rgb + 3 * i)));
        for (int c = 0; c < 3; ++c) rgb[3 * i + c] = to_byte(s * rgb[3 * i + c] + (1 - s) * grey);
      }
    } else {  // hue: rotate H in HSV (bytes, full 0..255 range, as PIL)
      const float h = std::uniform_real_distribution<float>(-hue, hue)(rng);
      const int shift = int(std::lround(h * 255.0f));
      cv::Mat img(height, width, CV_8UC3, rgb), hsv;
      cv::cvtColor(img, hsv, cv::COLOR_RGB2HSV_FULL);
      for (int y = 0; y < height; ++y) {
        uint8_t* row = hsv.ptr<uint8_t>(y);
        for (int x = 0; x < width; ++x) row[3 * x] = uint8_t((row[3 * x] + shift) & 255);
      }
      cv::cvtColor(hsv, img, cv::COLOR_HSV2RGB_FULL);
    }
  }
}

SsdTransform::SsdTransform(std::shared_ptr<const std::vector<LabelledBoxes>> annotations, const DefaultBoxes& dboxes,
                           bool jitter, Decode decode)
    : annotations_(std::move(annotations)), dboxes_(dboxes), jitter_(jitter), decode_(decode) {}

std::vector<int64_t> SsdTransform::sample_shape() const { return {3 * kSide * kSide + dboxes_.size() * 5}; }

bool SsdTransform::apply(JpegCodec&, const uint8_t*, size_t, std::mt19937_64&, float*, std::string* error) const {
  *error = "SsdTransform needs the sample's boxes (use apply_sample)";
  return false;
}

bool SsdTransform::apply_sample(JpegCodec& codec, const ImageSample& sample, const uint8_t* jpeg, size_t size,
                                std::mt19937_64& rng, float* out, std::string* error) const {
  static const std::array<float, 3> kMean{0.485f, 0.456f, 0.406f}, kStd{0.229f, 0.224f, 0.225f};
  thread_local RgbImage decoded;
  thread_local std::vector<uint8_t> resized;
  if (sample.label < 0 || size_t(sample.label) >= annotations_->size()) {
    *error = "no annotation for sample " + std::to_string(sample.label);
    return false;
  }
  JpegHeader hdr;
  if (!codec.header(jpeg, size, &hdr, error)) return false;
  LabelledBoxes boxes = (*annotations_)[size_t(sample.label)];
  const Box window = ssd_random_crop(boxes, rng);
  const bool mirror = std::uniform_real_distribution<double>(0, 1)(rng) < 0.5;
  if (mirror) flip_boxes(boxes);

  // The crop in pixels, as the original's int(left * wtot) ... int(bottom * htot).
  const int x0 = int(window[0] * hdr.width), y0 = int(window[1] * hdr.height);
  const int x1 = std::max(x0 + 1, int(window[2] * hdr.width)), y1 = std::max(y0 + 1, int(window[3] * hdr.height));
  const CropBox crop{x0, y0, x1 - x0, y1 - y0};
  if (!decode_for_crop(codec, jpeg, size, crop, kSide, kSide, decode_, &decoded, error)) return false;
  resized.resize(size_t(kSide) * kSide * 3);
  resize_region(decoded, hdr.width, hdr.height, crop, kSide, kSide, resized.data());
  if (jitter_) color_jitter(resized.data(), kSide, kSide, 0.125f, 0.5f, 0.5f, 0.05f, rng);
  to_normalized_chw(resized.data(), kSide, kSide, mirror, kMean, kStd, out);

  float* targets = out + 3 * kSide * kSide;
  encode_targets(dboxes_, boxes.ltrb, boxes.labels, 0.5f, targets, targets + 4 * dboxes_.size());
  return true;
}

SsdBatch unpack_ssd_batch(const torch::Tensor& rows, int64_t d) {
  const int64_t n = rows.size(0), pixels = 3 * SsdTransform::kSide * SsdTransform::kSide;
  SsdBatch b;
  b.images = rows.narrow(1, 0, pixels).view({n, 3, SsdTransform::kSide, SsdTransform::kSide});
  b.gloc = rows.narrow(1, pixels, 4 * d).view({n, d, 4}).transpose(1, 2);
  b.glabel = rows.narrow(1, pixels + 4 * d, d).to(torch::kInt64);
  return b;
}

SsdInput::SsdInput(Session& session, const std::string& dataset, int64_t batch_size, int loader_workers, Decode decode)
    : session_(session) {
  check_loader_flags(batch_size, loader_workers);
  const DatasetInfo* info = find_dataset(dataset);
  if (!info || info->name != "coco")
    throw std::invalid_argument("--dataset " + dataset +
                                " is not a detection dataset ssd reads (use milarun.datasets:coco)");
  CocoSet coco = read_coco(session.dataroot(), "train");
  labels_ = coco.labels();

  auto annotations = std::make_shared<std::vector<LabelledBoxes>>();
  std::vector<ImageSample> samples;
  for (const CocoImage& img : coco.images) {
    if (img.boxes.empty()) continue;  // the original drops images without boxes
    LabelledBoxes lb;
    for (const CocoBox& b : img.boxes) {
      const float w = float(img.width), h = float(img.height);
      lb.ltrb.push_back({b.xywh[0] / w, b.xywh[1] / h, (b.xywh[0] + b.xywh[2]) / w, (b.xywh[1] + b.xywh[3]) / h});
      lb.labels.push_back(b.label);
    }
    samples.push_back({img.path, int64_t(annotations->size())});
    annotations->push_back(std::move(lb));
  }
  if (samples.empty())
    throw std::runtime_error("COCO annotation file " + coco.annotation_file +
                             ": no image has a box; run: " + dataset_command("coco", session.dataroot()));

  nlohmann::json provenance = dataset_provenance(session.dataroot(), "coco");
  provenance["images"] = samples.size();
  provenance["boxes"] = coco.annotations;
  auto transform = std::make_shared<SsdTransform>(annotations, ssd300_default_boxes(), /*jitter=*/true, decode);
  feed_ = std::make_unique<SessionImageFeed>(session, std::move(provenance), std::move(samples), std::move(transform),
                                             batch_size, loader_workers, /*shuffle=*/true, decode);
}

SsdBatch SsdInput::next() {
  ImageBatch b = feed_->next();
  // One copy of the packed rows (pinned on CUDA), unpacked on the device.
  const torch::Tensor rows = b.images.to(session_.device(), /*non_blocking=*/session_.device().is_cuda());
  SsdBatch d = unpack_ssd_batch(rows, ssd300_default_boxes().size());
  return {d.images.contiguous(), d.gloc.contiguous(), d.glabel};
}

}  // namespace milabench
