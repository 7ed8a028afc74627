// JpegCodec::decode_region through libjpeg(-turbo)'s own API, which TurboJPEG
// 2.1 does not expose: jpeg_crop_scanline, jpeg_skip_scanlines and stopping
// after the last row needed. Errors longjmp out of libjpeg into
// decode_region, which resets the decompressor and reports the message.
// clang-format off
#include <cstddef>  // jpeglib.h needs size_t and FILE declared first
#include <cstdio>
#include <jpeglib.h>
// clang-format on

#include <algorithm>
#include <csetjmp>
#include <cstring>

#include "data/jpeg.hpp"

namespace milabench {

struct JpegRegionDecoder {
  jpeg_decompress_struct cinfo{};
  jpeg_error_mgr err{};
  std::jmp_buf jump{};
  char message[JMSG_LENGTH_MAX] = {};
};

namespace {

void on_error(j_common_ptr c) {
  auto* r = static_cast<JpegRegionDecoder*>(c->client_data);
  (*c->err->format_message)(c, r->message);
  std::longjmp(r->jump, 1);
}

// Warnings (level -1) are errors, as TurboJPEG's TJFLAG_STOPONWARNING: a
// corrupt or truncated stream is skipped rather than decoded half grey.
void on_message(j_common_ptr c, int level) {
  if (level < 0) on_error(c);
}

// An end-of-image marker (FF D9) near the end of the stream (trailing bytes
// after it are tolerated).
bool has_end_marker(const uint8_t* data, size_t size) {
  const size_t stop = size > 65536 ? size - 65536 : 0;
  for (size_t i = size; i >= stop + 2; --i)
    if (data[i - 2] == 0xFF && data[i - 1] == 0xD9) return true;
  return false;
}

}  // namespace

void JpegCodec::release_region() {
  if (!region_) return;
  jpeg_destroy_decompress(&region_->cinfo);
  delete region_;
  region_ = nullptr;
}

bool JpegCodec::decode_region(const uint8_t* data, size_t size, JpegScale scale, PixelRect region, RgbImage* out,
                              std::string* error) {
  if (!region_) {
    region_ = new JpegRegionDecoder;
    region_->cinfo.err = jpeg_std_error(&region_->err);
    region_->err.error_exit = on_error;
    region_->err.emit_message = on_message;
    region_->cinfo.client_data = region_;
    jpeg_create_decompress(&region_->cinfo);
  }
  jpeg_decompress_struct& cinfo = region_->cinfo;
  if (setjmp(region_->jump)) {
    *error = region_->message;
    jpeg_abort_decompress(&cinfo);
    return false;
  }
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  const int src_w = int(cinfo.image_width), src_h = int(cinfo.image_height);
  cinfo.out_color_space = JCS_RGB;
  cinfo.scale_num = unsigned(scale.num);
  cinfo.scale_denom = unsigned(scale.denom);
  jpeg_start_decompress(&cinfo);
  const int full_w = int(cinfo.output_width), full_h = int(cinfo.output_height);
  // The region in scaled pixels, rounded outwards and clipped.
  const int x = std::clamp(region.x, 0, src_w - 1), y = std::clamp(region.y, 0, src_h - 1);
  const int x_end = std::clamp(region.x + region.w, x + 1, src_w),
            y_end = std::clamp(region.y + region.h, y + 1, src_h);
  // One extra column each side: at a crop edge libjpeg replicates the edge
  // chroma sample where the whole-image decode interpolates with the neighbour,
  // so only the columns strictly inside the requested range match decode().
  const int sx0 = std::max(0, int(int64_t(x) * full_w / src_w) - 1), sy0 = int(int64_t(y) * full_h / src_h);
  const int sx1 = std::min(full_w, int((int64_t(x_end) * full_w + src_w - 1) / src_w) + 1);
  const int sy1 = std::min(full_h, int((int64_t(y_end) * full_h + src_h - 1) / src_h));
  JDIMENSION left = JDIMENSION(sx0), width = JDIMENSION(std::max(1, sx1 - sx0));
  jpeg_crop_scanline(&cinfo, &left, &width);  // widened to iMCU boundaries
  if (sy0 > 0) jpeg_skip_scanlines(&cinfo, JDIMENSION(sy0));
  const int rows = std::max(1, sy1 - sy0);
  out->width = int(cinfo.output_width);
  out->height = rows;
  out->left = int(left);
  out->top = sy0;
  out->full_width = full_w;
  out->full_height = full_h;
  out->pixels.resize(size_t(out->width) * rows * 3);
  JSAMPROW row_ptrs[16];
  while (int(cinfo.output_scanline) < sy0 + rows) {
    const int done = int(cinfo.output_scanline) - sy0;
    const int n = std::min(16, rows - done);
    for (int i = 0; i < n; ++i) row_ptrs[i] = out->pixels.data() + size_t(done + i) * out->width * 3;
    jpeg_read_scanlines(&cinfo, row_ptrs, JDIMENSION(n));
  }
  if (cinfo.output_scanline == cinfo.output_height) {
    jpeg_finish_decompress(&cinfo);
  } else {
    jpeg_abort_decompress(&cinfo);
    if (!has_end_marker(data, size)) {
      *error = "truncated JPEG (no end-of-image marker)";
      return false;
    }
  }
  return true;
}

}  // namespace milabench
