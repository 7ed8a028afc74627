// The deterministic transforms of dcgan, fast_style and reso (see
// image_transform.hpp for the contract every transform keeps). No torch here.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "data/image_transform.hpp"

namespace milabench {

// The source region that torchvision's Resize(size) (shorter side to `size`,
// the longer one truncated to int) followed by CenterCrop(size) keeps of a
// width x height image, in source pixels.
CropBox resize_center_crop_box(int width, int height, int size);

// Resize(size) + CenterCrop(size) + ToTensor + Normalize(mean, std), the
// transform of dcgan (mean = std = 0.5) and of fast_style (ToTensor then
// x255: mean 0, std 1/255). Output [3, size, size].
class ResizeCenterCrop : public ImageTransform {
 public:
  struct Options {
    int size = 64;
    Decode decode = Decode::full;  // image_transform.hpp
    std::array<float, 3> mean{0.5f, 0.5f, 0.5f};
    std::array<float, 3> std{0.5f, 0.5f, 0.5f};
  };
  explicit ResizeCenterCrop(Options options);  // throws std::invalid_argument when size < 1

  std::vector<int64_t> sample_shape() const override { return {3, options_.size, options_.size}; }
  bool apply(JpegCodec& codec, const uint8_t* jpeg, size_t size, std::mt19937_64& rng, float* out,
             std::string* error) const override;

 private:
  Options options_;
};

// reso's input/target pair from one image, as the original's subpixel
// workload: the luma (PIL's convert('YCbCr') Y = 0.299 R + 0.587 G + 0.114 B)
// of CenterCrop(crop) is the target; that crop resized to crop / upscale is
// the input; both ToTensor (v / 255). A source smaller than the crop is padded
// with zeros, as torchvision's CenterCrop. One sample packs both, flat:
// [input (low * low) | target (crop * crop)] with low = crop / upscale; use
// split_luma_pair() on a batch to get [B,1,low,low] and [B,1,crop,crop].
class LumaSuperResolutionPair : public ImageTransform {
 public:
  // crop is first rounded down to a multiple of upscale (the original's
  // calculate_valid_crop_size). Throws std::invalid_argument when upscale < 1
  // or the rounded crop < upscale.
  LumaSuperResolutionPair(int crop, int upscale);

  int crop() const { return crop_; }
  int low() const { return crop_ / upscale_; }
  std::vector<int64_t> sample_shape() const override { return {int64_t(low()) * low() + int64_t(crop_) * crop_}; }
  bool apply(JpegCodec& codec, const uint8_t* jpeg, size_t size, std::mt19937_64& rng, float* out,
             std::string* error) const override;

 private:
  int crop_, upscale_;
};

}  // namespace milabench
