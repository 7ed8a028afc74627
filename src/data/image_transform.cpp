#include "data/image_transform.hpp"

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

namespace milabench {

CropBox random_resized_crop_box(int width, int height, double scale_lo, double scale_hi, double ratio_lo,
                                double ratio_hi, std::mt19937_64& rng) {
  const double area = double(width) * height;
  std::uniform_real_distribution<double> scale(scale_lo, scale_hi);
  std::uniform_real_distribution<double> log_ratio(std::log(ratio_lo), std::log(ratio_hi));
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * scale(rng);
    const double aspect = std::exp(log_ratio(rng));
    // Python's round() rounds half to even, as nearbyint does by default.
    const int w = int(std::nearbyint(std::sqrt(target_area * aspect)));
    const int h = int(std::nearbyint(std::sqrt(target_area / aspect)));
    if (0 < w && w <= width && 0 < h && h <= height) {
      const int y = std::uniform_int_distribution<int>(0, height - h)(rng);
      const int x = std::uniform_int_distribution<int>(0, width - w)(rng);
      return {x, y, w, h};
    }
  }
  const double in_ratio = double(width) / height;
  int w = width, h = height;
  if (in_ratio < ratio_lo) {
    h = int(std::nearbyint(w / ratio_lo));
  } else if (in_ratio > ratio_hi) {
    w = int(std::nearbyint(h * ratio_hi));
  }
  return {(width - w) / 2, (height - h) / 2, w, h};
}

const char* decode_name(Decode d) { return d == Decode::full ? "full" : "reduced"; }

bool decode_for_crop(JpegCodec& codec, const uint8_t* jpeg, size_t size, CropBox box, int out_w, int out_h, Decode mode,
                     RgbImage* out, std::string* error) {
  if (mode == Decode::full) {
    return codec.decode(jpeg, size, {1, 1}, out, error);
  }
  const JpegScale scale = smallest_scale_covering(box.w, box.h, out_w, out_h);
  return codec.decode_region(jpeg, size, scale, {box.x, box.y, box.w, box.h}, out, error);
}

void resize_region(const RgbImage& decoded, int src_w, int src_h, CropBox box, int out_w, int out_h, uint8_t* out) {
  // Box in the whole scaled image, then in the decoded part of it.
  const double fx = double(decoded.scaled_width()) / src_w, fy = double(decoded.scaled_height()) / src_h;
  int x0 = int(std::lround(box.x * fx)) - decoded.left, y0 = int(std::lround(box.y * fy)) - decoded.top;
  int x1 = int(std::lround((box.x + box.w) * fx)) - decoded.left;
  int y1 = int(std::lround((box.y + box.h) * fy)) - decoded.top;
  x0 = std::clamp(x0, 0, decoded.width - 1);
  y0 = std::clamp(y0, 0, decoded.height - 1);
  x1 = std::clamp(x1, x0 + 1, decoded.width);
  y1 = std::clamp(y1, y0 + 1, decoded.height);
  const cv::Mat src(decoded.height, decoded.width, CV_8UC3, const_cast<uint8_t*>(decoded.pixels.data()));
  cv::Mat dst(out_h, out_w, CV_8UC3, out);
  const cv::Mat region = src(cv::Rect(x0, y0, x1 - x0, y1 - y0));
  const bool shrinking = out_w <= region.cols && out_h <= region.rows;
  cv::resize(region, dst, cv::Size(out_w, out_h), 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
}

void to_normalized_chw(const uint8_t* rgb, int width, int height, bool mirror, const std::array<float, 3>& mean,
                       const std::array<float, 3>& std, float* out) {
  float lut[3][256];
  for (int c = 0; c < 3; ++c)
    for (int v = 0; v < 256; ++v) lut[c][v] = (float(v) / 255.0f - mean[c]) / std[c];
  const size_t plane = size_t(width) * height;
  for (int y = 0; y < height; ++y) {
    const uint8_t* row = rgb + size_t(y) * width * 3;
    float* r = out + size_t(y) * width;
    float* g = r + plane;
    float* b = g + plane;
    for (int x = 0; x < width; ++x) {
      const uint8_t* px = row + size_t(mirror ? width - 1 - x : x) * 3;
      r[x] = lut[0][px[0]];
      g[x] = lut[1][px[1]];
      b[x] = lut[2][px[2]];
    }
  }
}

void use_single_threaded_opencv() { cv::setNumThreads(0); }

RandomResizedCropFlip::RandomResizedCropFlip(Options options) : options_(options) {
  if (options_.size < 1) throw std::invalid_argument("RandomResizedCrop: size must be >= 1");
}

bool RandomResizedCropFlip::apply(JpegCodec& codec, const uint8_t* jpeg, size_t size, std::mt19937_64& rng, float* out,
                                  std::string* error) const {
  thread_local RgbImage decoded;
  thread_local std::vector<uint8_t> resized;
  JpegHeader hdr;
  if (!codec.header(jpeg, size, &hdr, error)) return false;
  const CropBox box = random_resized_crop_box(hdr.width, hdr.height, options_.scale_lo, options_.scale_hi,
                                              options_.ratio_lo, options_.ratio_hi, rng);
  const bool mirror = options_.flip && std::uniform_real_distribution<double>(0, 1)(rng) < 0.5;
  if (!decode_for_crop(codec, jpeg, size, box, options_.size, options_.size, options_.decode, &decoded, error))
    return false;
  resized.resize(size_t(options_.size) * options_.size * 3);
  resize_region(decoded, hdr.width, hdr.height, box, options_.size, options_.size, resized.data());
  to_normalized_chw(resized.data(), options_.size, options_.size, mirror, options_.mean, options_.std, out);
  return true;
}

}  // namespace milabench
