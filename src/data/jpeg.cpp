#include "data/jpeg.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace milabench {

JpegCodec::JpegCodec() {
  handle_decompress_ = tjInitDecompress();
  handle_compress_ = tjInitCompress();
  if (!handle_decompress_ || !handle_compress_)
    throw std::runtime_error(std::string("TurboJPEG: cannot create a handle: ") + tjGetErrorStr2(nullptr));
}

JpegCodec::~JpegCodec() {
  release_region();
  if (handle_decompress_) tjDestroy(handle_decompress_);
  if (handle_compress_) tjDestroy(handle_compress_);
}

// A stream that fails mid-header leaves TurboJPEG 2.1's decompressor in a
// state where the next header reads as 0x0: start afresh after any error.
static void reset_decompressor(void*& handle) {
  tjDestroy(handle);
  handle = tjInitDecompress();
  if (!handle) throw std::runtime_error("TurboJPEG: cannot create a handle");
}

bool JpegCodec::header(const uint8_t* data, size_t size, JpegHeader* out, std::string* error) {
  int w = 0, h = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(handle_decompress_, data, static_cast<unsigned long>(size), &w, &h, &subsamp, &colorspace) !=
      0) {
    *error = tjGetErrorStr2(handle_decompress_);
    reset_decompressor(handle_decompress_);
    return false;
  }
  if (w <= 0 || h <= 0) {
    *error = "JPEG header has an empty image";
    return false;
  }
  const int64_t pixels = int64_t(w) * h;
  if (pixels > kJpegMaxPixels || pixels > kJpegMaxPixelsPerByte * int64_t(size)) {
    *error = "JPEG header claims " + std::to_string(w) + "x" + std::to_string(h) + " pixels in " +
             std::to_string(size) + " bytes (over the decoder's limit)";
    return false;
  }
  out->width = w;
  out->height = h;
  return true;
}

bool JpegCodec::decode(const uint8_t* data, size_t size, JpegScale scale, RgbImage* out, std::string* error) {
  JpegHeader hdr;
  if (!header(data, size, &hdr, error)) return false;
  const int w = scale.apply(hdr.width), h = scale.apply(hdr.height);
  out->width = w;
  out->height = h;
  out->left = out->top = out->full_width = out->full_height = 0;  // the whole image
  out->pixels.resize(static_cast<size_t>(w) * h * 3);
  // STOPONWARNING: a truncated stream ("premature end of data") is an error,
  // not a silently grey-filled image.
  if (tjDecompress2(handle_decompress_, data, static_cast<unsigned long>(size), out->pixels.data(), w, 0, h, TJPF_RGB,
                    TJFLAG_STOPONWARNING) != 0) {
    *error = tjGetErrorStr2(handle_decompress_);
    reset_decompressor(handle_decompress_);
    return false;
  }
  return true;
}

std::string JpegCodec::encode(const uint8_t* rgb, int width, int height, int quality) {
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  if (tjCompress2(handle_compress_, rgb, width, 0, height, TJPF_RGB, &buf, &size, TJSAMP_420, quality, 0) != 0) {
    std::string why = tjGetErrorStr2(handle_compress_);
    if (buf) tjFree(buf);
    throw std::runtime_error("TurboJPEG: cannot encode a " + std::to_string(width) + "x" + std::to_string(height) +
                             " image: " + why);
  }
  std::string bytes(reinterpret_cast<const char*>(buf), size);
  tjFree(buf);
  return bytes;
}

JpegScale smallest_scale_covering(int region_w, int region_h, int min_w, int min_h) {
  int n = 0;
  tjscalingfactor* factors = tjGetScalingFactors(&n);
  JpegScale best{1, 1};
  for (int i = 0; i < n; ++i) {
    JpegScale s{factors[i].num, factors[i].denom};
    if (s.num > s.denom) continue;  // never upscale in the decoder
    // Floor of the scaled region: the decoded image rounds up, the region
    // inside it may start mid-pixel, so be conservative.
    const int64_t sw = int64_t(region_w) * s.num / s.denom, sh = int64_t(region_h) * s.num / s.denom;
    if (sw >= min_w && sh >= min_h && int64_t(s.num) * best.denom < int64_t(best.num) * s.denom) best = s;
  }
  return best;
}

bool read_file_bytes(const std::string& path, std::vector<uint8_t>* out, std::string* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *error = path + ": " + std::strerror(errno);
    ::close(fd);
    return false;
  }
  out->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out->size()) {
    ssize_t r = ::read(fd, out->data() + done, out->size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      *error = path + ": " + (r < 0 ? std::strerror(errno) : "file shrank while reading");
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(r);
  }
  ::close(fd);
  return true;
}

}  // namespace milabench
