// JPEG encode/decode through libjpeg-turbo's TurboJPEG API. No torch here.
// A JpegCodec owns one TurboJPEG handle: use one per thread (handles are not
// thread-safe). Pixels are 8-bit RGB, row-major, HWC, tightly packed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace milabench {

struct JpegHeader {
  int width = 0;
  int height = 0;
};

// A decoded image: height*width*3 bytes of RGB. A region decode holds only
// part of the (DCT-scaled) image: its pixel (0, 0) is pixel (left, top) of the
// whole scaled image, which is full_width x full_height (0 = width/height).
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;
  int left = 0, top = 0;
  int full_width = 0, full_height = 0;
  int scaled_width() const { return full_width > 0 ? full_width : width; }
  int scaled_height() const { return full_height > 0 ? full_height : height; }
};

// A rectangle of source pixels.
struct PixelRect {
  int x = 0, y = 0, w = 0, h = 0;
};

// A DCT scaling factor num/denom supported by this libjpeg-turbo (1/8 .. 2).
struct JpegScale {
  int num = 1;
  int denom = 1;
  int apply(int dimension) const { return (dimension * num + denom - 1) / denom; }  // = TJSCALED
};

// Largest image the codec accepts, in source pixels: an absolute cap (67 M
// pixels, 8192 x 8192) and one against the file's length (4096 pixels per
// byte, i.e. 0.002 bits per pixel, far below any photograph's), so that a
// forged header cannot make the decoder allocate gigabytes from a few bytes.
constexpr int64_t kJpegMaxPixels = int64_t(1) << 26;
constexpr int64_t kJpegMaxPixelsPerByte = 4096;
struct JpegRegionDecoder;  // jpeg_region.cpp

class JpegCodec {
 public:
  JpegCodec();  // throws std::runtime_error when TurboJPEG cannot make a handle
  ~JpegCodec();
  JpegCodec(const JpegCodec&) = delete;
  JpegCodec& operator=(const JpegCodec&) = delete;

  // Reads the header. Returns false (and sets *error) when `data` is not a
  // JPEG or its size exceeds the caps above.
  bool header(const uint8_t* data, size_t size, JpegHeader* out, std::string* error);

  // Decodes at `scale` (see smallest_scale_covering). Returns false (and sets
  // *error) on any error or warning, including a truncated file: the caller
  // skips such an image rather than use a partly grey one.
  bool decode(const uint8_t* data, size_t size, JpegScale scale, RgbImage* out, std::string* error);

  // Decodes at `scale` only what covers `region` (source pixels, clipped to
  // the image): the rows above it are skipped without colour conversion, the
  // columns outside it (to iMCU boundaries) are not inverse-transformed, the
  // rows below it are not read at all. Same pixels as decode() where they
  // overlap inside the region. Errors as decode(); a stream missing its end-of-image marker counts
  // as truncated even when the rows the region needs are intact.
  bool decode_region(const uint8_t* data, size_t size, JpegScale scale, PixelRect region, RgbImage* out,
                     std::string* error);

  // Encodes RGB pixels with 4:2:0 chroma subsampling (PIL's default) at
  // `quality` (1..100). Throws std::runtime_error on failure.
  std::string encode(const uint8_t* rgb, int width, int height, int quality);

 private:
  void* handle_decompress_ = nullptr;
  void* handle_compress_ = nullptr;
  JpegRegionDecoder* region_ = nullptr;  // libjpeg decompressor of decode_region, made on first use
  void release_region();
};

// The smallest DCT scaling factor s (s <= 1) such that a region of
// region_w x region_h source pixels is still at least min_w x min_h after
// scaling, so that resizing that region to min_w x min_h only ever shrinks.
// Returns 1/1 when the region is already smaller than the target.
JpegScale smallest_scale_covering(int region_w, int region_h, int min_w, int min_h);

// Reads a whole file into `out` (reusing its capacity). Returns false and sets
// *error ("<path>: <strerror>") when it cannot be opened or read.
bool read_file_bytes(const std::string& path, std::vector<uint8_t>* out, std::string* error);

}  // namespace milabench
