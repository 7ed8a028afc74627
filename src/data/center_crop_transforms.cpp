#include "data/center_crop_transforms.hpp"

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

namespace milabench {

CropBox resize_center_crop_box(int width, int height, int size) {
  // Resize: the shorter side becomes `size`, the other int(size * long / short).
  const bool wide = width >= height;
  const int short_side = wide ? height : width, long_side = wide ? width : height;
  const int resized_long = std::max(size, int(int64_t(size) * long_side / short_side));
  // CenterCrop on the resized image: offset int(round((resized_long - size) / 2)).
  const int offset = int(std::nearbyint((resized_long - size) / 2.0));
  const double to_source = double(short_side) / size;
  CropBox box;
  const int along = int(std::lround(offset * to_source)), extent = int(std::lround(size * to_source));
  box.x = wide ? along : 0;
  box.y = wide ? 0 : along;
  box.w = std::min(width - box.x, wide ? extent : width);
  box.h = std::min(height - box.y, wide ? height : extent);
  return box;
}

ResizeCenterCrop::ResizeCenterCrop(Options options) : options_(options) {
  if (options_.size < 1) throw std::invalid_argument("Resize/CenterCrop: size must be >= 1");
}

bool ResizeCenterCrop::apply(JpegCodec& codec, const uint8_t* jpeg, size_t size, std::mt19937_64&, float* out,
                             std::string* error) const {
  thread_local RgbImage decoded;
  thread_local std::vector<uint8_t> resized;
  JpegHeader hdr;
  if (!codec.header(jpeg, size, &hdr, error)) return false;
  const CropBox box = resize_center_crop_box(hdr.width, hdr.height, options_.size);
  if (!decode_for_crop(codec, jpeg, size, box, options_.size, options_.size, options_.decode, &decoded, error))
    return false;
  resized.resize(size_t(options_.size) * options_.size * 3);
  resize_region(decoded, hdr.width, hdr.height, box, options_.size, options_.size, resized.data());
  to_normalized_chw(resized.data(), options_.size, options_.size, false, options_.mean, options_.std, out);
  return true;
}

LumaSuperResolutionPair::LumaSuperResolutionPair(int crop, int upscale) : crop_(crop), upscale_(upscale) {
  if (upscale_ < 1) throw std::invalid_argument("--upscale-factor must be >= 1, got " + std::to_string(upscale));
  crop_ -= crop_ % upscale_;
  if (crop_ < upscale_)
    throw std::invalid_argument("super-resolution crop " + std::to_string(crop) +
                                " is smaller than the upscale factor");
}

bool LumaSuperResolutionPair::apply(JpegCodec& codec, const uint8_t* jpeg, size_t size, std::mt19937_64&, float* out,
                                    std::string* error) const {
  thread_local RgbImage decoded;
  thread_local std::vector<uint8_t> luma;
  if (!codec.decode(jpeg, size, {1, 1}, &decoded, error)) return false;
  // CenterCrop offsets (negative when the image is smaller: zero padding).
  const int top = int(std::nearbyint((decoded.height - crop_) / 2.0));
  const int left = int(std::nearbyint((decoded.width - crop_) / 2.0));
  luma.assign(size_t(crop_) * crop_, 0);
  for (int y = 0; y < crop_; ++y) {
    const int sy = top + y;
    if (sy < 0 || sy >= decoded.height) continue;
    for (int x = 0; x < crop_; ++x) {
      const int sx = left + x;
      if (sx < 0 || sx >= decoded.width) continue;
      const uint8_t* p = &decoded.pixels[(size_t(sy) * decoded.width + sx) * 3];
      // PIL's RGB -> YCbCr luma, fixed point with rounding.
      luma[size_t(y) * crop_ + x] = uint8_t((19595u * p[0] + 38470u * p[1] + 7471u * p[2] + 0x8000u) >> 16);
    }
  }
  const int lo = low();
  float* input = out;
  float* target = out + size_t(lo) * lo;
  const cv::Mat full(crop_, crop_, CV_8UC1, luma.data());
  cv::Mat small;
  cv::resize(full, small, cv::Size(lo, lo), 0, 0, cv::INTER_AREA);
  for (int y = 0; y < lo; ++y)
    for (int x = 0; x < lo; ++x) input[size_t(y) * lo + x] = small.at<uint8_t>(y, x) / 255.0f;
  for (size_t i = 0; i < luma.size(); ++i) target[i] = luma[i] / 255.0f;
  return true;
}

}  // namespace milabench
