#include "data/idx_format.hpp"

#include <algorithm>

namespace milabench {
namespace {

uint32_t be32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

std::string hex(uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

}  // namespace

IdxArray parse_idx(std::string_view bytes, uint32_t magic, const std::string& source) {
  const size_t ndim = magic & 0xff;
  const size_t header = 4 + 4 * ndim;
  if (bytes.size() < header)
    throw DataFormatError(source, "truncated header (" + std::to_string(bytes.size()) + " bytes, an idx header of " +
                                      std::to_string(ndim) + " dimensions has " + std::to_string(header) + ")");
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (be32(p) != magic)
    throw DataFormatError(
        source, "wrong magic number " + hex(be32(p)) + ", expected " + hex(magic) + " (not an idx file of this kind)");
  const size_t payload = bytes.size() - header;
  IdxArray a;
  size_t total = 1;
  bool too_big = false;
  for (size_t i = 0; i < ndim; ++i) {
    const uint32_t d = be32(p + 4 + 4 * i);
    a.dims.push_back(d);
    // total * d > payload, tested without forming the product.
    if (d != 0 && total > payload / d) too_big = true;
    if (!too_big) total *= d;
  }
  if (too_big || total != payload) {
    std::string shape;
    for (int64_t d : a.dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    throw DataFormatError(source, "truncated or oversized: " + std::to_string(payload) +
                                      " data bytes, the header's shape " + shape + " needs " +
                                      (too_big ? "more" : std::to_string(total)));
  }
  a.data = bytes.substr(header);
  return a;
}

MnistSplitView parse_mnist_split(std::string_view images, std::string_view labels, const std::string& images_source,
                                 const std::string& labels_source) {
  const IdxArray im = parse_idx(images, kIdxImagesMagic, images_source);
  const IdxArray lb = parse_idx(labels, kIdxLabelsMagic, labels_source);
  if (im.dims[1] != kMnistSide || im.dims[2] != kMnistSide)
    throw DataFormatError(images_source, "images are " + std::to_string(im.dims[1]) + "x" + std::to_string(im.dims[2]) +
                                             ", expected 28x28");
  if (im.dims[0] != lb.dims[0])
    throw DataFormatError(labels_source,
                          std::to_string(lb.dims[0]) + " labels for " + std::to_string(im.dims[0]) + " images");
  auto bad = std::find_if(lb.data.begin(), lb.data.end(), [](char c) { return static_cast<unsigned char>(c) > 9; });
  if (bad != lb.data.end())
    throw DataFormatError(labels_source, "label " + std::to_string(static_cast<unsigned char>(*bad)) + " at index " +
                                             std::to_string(bad - lb.data.begin()) + " is outside 0..9");
  return {im.dims[0], im.data, lb.data};
}

}  // namespace milabench
