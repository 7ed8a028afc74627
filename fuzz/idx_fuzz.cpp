// Fuzz target: the idx parser behind the MNIST reader (data/idx_format.hpp).
// Contract: any bytes either parse (and the payload is then exactly the
// product of the dimensions) or throw DataFormatError with one line naming
// the input; no crash, no sanitizer report, no allocation from a header field.
// Input: the whole buffer is tried as an images file and as a labels file;
// when it starts with a 4-byte big-endian length L (<= the rest), the next L
// bytes and the remainder are also tried as one MNIST split.
#include <cstdint>
#include <string>
#include <string_view>

#include "data/idx_format.hpp"
#include "fuzz_contract.hpp"

namespace {

using milabench::fuzz::require;

void try_idx(std::string_view bytes, uint32_t magic) {
  const std::string source = "fuzz/train-idx";
  try {
    milabench::IdxArray a = milabench::parse_idx(bytes, magic, source);
    size_t total = 1;
    for (int64_t d : a.dims) total *= size_t(d);
    require(a.dims.size() == (magic & 0xff) && a.data.size() == total);
  } catch (const milabench::DataFormatError& e) {
    milabench::fuzz::check_error_message(e.what(), source);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try_idx(bytes, milabench::kIdxImagesMagic);
  try_idx(bytes, milabench::kIdxLabelsMagic);
  if (size < 4) return 0;
  const size_t split = (size_t(data[0]) << 24) | (size_t(data[1]) << 16) | (size_t(data[2]) << 8) | size_t(data[3]);
  if (split > size - 4) return 0;
  const std::string_view images = bytes.substr(4, split), labels = bytes.substr(4 + split);
  try {
    milabench::MnistSplitView v = milabench::parse_mnist_split(images, labels, "fuzz/images", "fuzz/labels");
    require(v.images.size() == size_t(v.count) * 28 * 28 && v.labels.size() == size_t(v.count));
    for (char c : v.labels) require(static_cast<unsigned char>(c) <= 9);
  } catch (const milabench::DataFormatError& e) {
    const std::string what = e.what();
    milabench::fuzz::check_error_message(what, what.rfind("fuzz/labels", 0) == 0 ? "fuzz/labels" : "fuzz/images");
  }
  return 0;
}
