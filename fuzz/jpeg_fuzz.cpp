// Fuzz target: the image loader's JPEG path (data/jpeg.hpp,
// data/image_transform.hpp): header read, DCT-scaled decode, random resized
// crop + resize + normalisation. Contract: any bytes are either decoded into
// a sample of finite floats or refused with an error string (the loader skips
// and counts such images); no crash, no sanitizer report, no allocation
// beyond the codec's pixel caps. One codec serves every input, as one loader
// thread's does, so a bad file cannot poison the next.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "data/image_transform.hpp"
#include "data/jpeg.hpp"
#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using milabench::fuzz::require;
  static milabench::JpegCodec codec;
  static const milabench::RandomResizedCropFlip transform([] {
    milabench::RandomResizedCropFlip::Options o;
    o.size = 24;  // small: the decode and crop paths are the same as at 224
    return o;
  }());
  static bool once = (milabench::use_single_threaded_opencv(), true);
  (void)once;
  std::string error;
  milabench::JpegHeader hdr;
  if (!codec.header(data, size, &hdr, &error)) {
    require(!error.empty());
    return 0;
  }
  require(hdr.width > 0 && hdr.height > 0 && int64_t(hdr.width) * hdr.height <= milabench::kJpegMaxPixels);
  // A plain 1/8-scaled decode, then the training transform.
  milabench::RgbImage img;
  if (codec.decode(data, size, {1, 8}, &img, &error)) require(img.pixels.size() == size_t(img.width) * img.height * 3);
  std::mt19937_64 rng(size);
  std::vector<float> sample(3 * 24 * 24);
  if (transform.apply(codec, data, size, rng, sample.data(), &error)) {
    for (float v : sample) require(std::isfinite(v));
  } else {
    require(!error.empty());
  }
  return 0;
}
