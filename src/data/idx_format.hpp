// The idx format (MNIST's files): big-endian uint32 magic 0x000008NN (uint8
// data, NN dimensions), NN big-endian uint32 dimensions, then exactly
// prod(dimensions) bytes. Pure parsing, no torch and no file access: the
// MNIST reader (data/mnist.cpp) reads the files and calls these, and the fuzz
// target fuzz/idx_fuzz.cpp feeds them arbitrary bytes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/format_error.hpp"

namespace milabench {

constexpr uint32_t kIdxImagesMagic = 0x803;  // uint8, 3 dimensions (N, rows, cols)
constexpr uint32_t kIdxLabelsMagic = 0x801;  // uint8, 1 dimension (N)
constexpr int kMnistSide = 28;

struct IdxArray {
  std::vector<int64_t> dims;
  std::string_view data;  // prod(dims) bytes; a view into the parsed buffer
};

// Parses `bytes` as an idx file with exactly this magic. Throws
// DataFormatError("SOURCE: ...") when the header is truncated, the magic
// differs, or the payload is not exactly prod(dims) bytes (the product is
// checked against the buffer's length before it is formed, so no header can
// overflow it or make the caller allocate more than the input holds).
IdxArray parse_idx(std::string_view bytes, uint32_t magic, const std::string& source);

// One MNIST split as stored: N images of 28x28 and N labels in 0..9.
struct MnistSplitView {
  int64_t count = 0;
  std::string_view images;  // count * 28 * 28 bytes
  std::string_view labels;  // count bytes
};

// Parses an images file and a labels file and checks they form one split.
// Throws DataFormatError naming the file at fault (images not 28x28, label
// count differs from the image count, a label outside 0..9).
MnistSplitView parse_mnist_split(std::string_view images, std::string_view labels, const std::string& images_source,
                                 const std::string& labels_source);

}  // namespace milabench
