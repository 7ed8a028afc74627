// Per-workload image transforms: JPEG bytes -> one float sample. By default
// every JPEG is decoded whole at full resolution before the crop and resize,
// as the original's PIL loader (Image.open(...).convert('RGB')) does. The
// opt-in reduced decode (Decode::reduced) decodes only the region the crop
// needs at the smallest DCT scale still at least the output size: less work
// than the original, so a workload that offers it records it in its result
// (training/image_input.hpp). No torch here: a transform
// writes into a float buffer the loader owns (data/image_loader.hpp).
// Transforms are shared by all loader threads: apply() must be const and
// thread-safe (scratch memory is thread-local).
#pragma once
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "data/image_folder.hpp"
#include "data/jpeg.hpp"

namespace milabench {

class ImageTransform {
 public:
  virtual ~ImageTransform() = default;
  // Shape of one output sample, e.g. {3, 224, 224}.
  virtual std::vector<int64_t> sample_shape() const = 0;
  // Decodes `jpeg` and writes prod(sample_shape()) floats at `out`. Returns
  // false with *error set when the JPEG is corrupt or truncated (the loader
  // skips and counts it). `rng` is this sample's own generator.
  virtual bool apply(JpegCodec& codec, const uint8_t* jpeg, size_t size, std::mt19937_64& rng, float* out,
                     std::string* error) const = 0;
  // What the loader calls: apply() for `sample` (whose file `jpeg` holds).
  // Transforms that need the sample's own metadata (a detection dataset's
  // boxes, looked up by sample.label) override this one.
  virtual bool apply_sample(JpegCodec& codec, const ImageSample& sample, const uint8_t* jpeg, size_t size,
                            std::mt19937_64& rng, float* out, std::string* error) const {
    (void)sample;
    return apply(codec, jpeg, size, rng, out, error);
  }
};

struct CropBox {
  int x = 0, y = 0, w = 0, h = 0;  // in source pixels
};

// How a transform decodes: `full` (the default, the original's work) or
// `reduced` (DCT-scaled region decode, an opt-in shortcut).
enum class Decode { full, reduced };
const char* decode_name(Decode d);  // "full" or "reduced"

// Decodes what resizing `box` of the JPEG to out_w x out_h
// needs: the whole image at scale 1/1 (Decode::full), or only the region of
// the box at smallest_scale_covering(box, out) (Decode::reduced). Pass the
// result to resize_region. Returns false with *error on a corrupt stream.
bool decode_for_crop(JpegCodec& codec, const uint8_t* jpeg, size_t size, CropBox box, int out_w, int out_h, Decode mode,
                     RgbImage* out, std::string* error);

// torchvision RandomResizedCrop.get_params: up to 10 tries of an area fraction
// in [scale_lo, scale_hi] and a log-uniform aspect ratio in [ratio_lo,
// ratio_hi], then the central crop fallback.
CropBox random_resized_crop_box(int width, int height, double scale_lo, double scale_hi, double ratio_lo,
                                double ratio_hi, std::mt19937_64& rng);

// Resizes region `box` of a `src_w` x `src_h` source image to out_w x out_h
// RGB bytes at `out`. `decoded` is that source, or a region of it covering
// the box (JpegCodec::decode_region), decoded at any DCT scale (the box is
// mapped to its pixels). Area averaging when shrinking, bilinear when
// enlarging (OpenCV imgproc).
void resize_region(const RgbImage& decoded, int src_w, int src_h, CropBox box, int out_w, int out_h, uint8_t* out);

// ToTensor + Normalize: HWC uint8 -> CHW float (v / 255 - mean[c]) / std[c],
// mirrored left-right when `mirror`.
void to_normalized_chw(const uint8_t* rgb, int width, int height, bool mirror, const std::array<float, 3>& mean,
                       const std::array<float, 3>& std, float* out);

// Turns off OpenCV's own thread pool: the loader already runs one decode per
// thread. Idempotent.
void use_single_threaded_opencv();

// torchvision's ImageNet training transform: RandomResizedCrop(size, scale,
// ratio) + RandomHorizontalFlip(0.5) + ToTensor + Normalize(mean, std).
class RandomResizedCropFlip : public ImageTransform {
 public:
  struct Options {
    int size = 224;
    double scale_lo = 0.08, scale_hi = 1.0;
    double ratio_lo = 3.0 / 4.0, ratio_hi = 4.0 / 3.0;
    bool flip = true;
    Decode decode = Decode::full;
    std::array<float, 3> mean{0.485f, 0.456f, 0.406f};  // ImageNet statistics
    std::array<float, 3> std{0.229f, 0.224f, 0.225f};
  };
  RandomResizedCropFlip() : RandomResizedCropFlip(Options{}) {}
  explicit RandomResizedCropFlip(Options options);

  std::vector<int64_t> sample_shape() const override { return {3, options_.size, options_.size}; }
  bool apply(JpegCodec& codec, const uint8_t* jpeg, size_t size, std::mt19937_64& rng, float* out,
             std::string* error) const override;

 private:
  Options options_;
};

}  // namespace milabench
