#include "data/data_error.hpp"
#include "data/mnist.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "data/manifest.hpp"
#include "results/result_file.hpp"

namespace milabench {
namespace {

constexpr int kSide = 28;

std::string split_file(const std::string& dataroot, bool train, bool images) {
  return mnist_raw_dir(dataroot) + "/" + (train ? "train" : "t10k") +
         (images ? "-images-idx3-ubyte" : "-labels-idx1-ubyte");
}

[[noreturn]] void bad_file(const std::string& path, const std::string& what, const std::string& dataroot) {
  throw DataError("MNIST file " + path + ": " + what + "; run: " + dataset_command("mnist", dataroot));
}

uint32_t be32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

void put_be32(std::string& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(char((v >> s) & 0xff));
}

// Reads an idx file: checks magic and that the payload is exactly the product
// of the dimensions. Returns (dims, payload).
std::pair<std::vector<int64_t>, std::string> read_idx(const std::string& path, uint32_t magic,
                                                      const std::string& dataroot) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad_file(path, "missing", dataroot);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t ndim = magic & 0xff;
  if (bytes.size() < 4 + 4 * ndim) bad_file(path, "truncated header", dataroot);
  auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (be32(p) != magic) bad_file(path, "wrong magic number (not an idx file of this kind)", dataroot);
  std::vector<int64_t> dims;
  size_t total = 1;
  for (size_t i = 0; i < ndim; ++i) {
    dims.push_back(be32(p + 4 + 4 * i));
    total *= size_t(dims.back());
  }
  size_t header = 4 + 4 * ndim;
  if (bytes.size() != header + total)
    bad_file(path, "truncated or oversized (" + std::to_string(bytes.size() - header) + " data bytes, expected " +
                       std::to_string(total) + ")", dataroot);
  return {dims, bytes.substr(header)};
}

// A class's template: up to 4 strokes, each a segment (x0,y0)-(x1,y1) in [4,24].
using Stroke = std::array<float, 4>;
std::vector<Stroke> class_template(int label) {
  std::mt19937 g(1000 + label);
  std::uniform_real_distribution<float> pos(5.f, 23.f);
  std::vector<Stroke> strokes(2 + label % 3);
  for (auto& s : strokes) s = {pos(g), pos(g), pos(g), pos(g)};
  return strokes;
}

void draw(std::string& img, size_t off, const std::vector<Stroke>& strokes, std::mt19937& g) {
  std::normal_distribution<float> jitter(0.f, 1.2f);
  for (const auto& s : strokes) {
    float x0 = s[0] + jitter(g), y0 = s[1] + jitter(g), x1 = s[2] + jitter(g), y1 = s[3] + jitter(g);
    int steps = 2 * int(std::hypot(x1 - x0, y1 - y0)) + 2;
    for (int t = 0; t <= steps; ++t) {
      float x = x0 + (x1 - x0) * t / steps, y = y0 + (y1 - y0) * t / steps;
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
          int px = int(std::lround(x)) + dx, py = int(std::lround(y)) + dy;
          if (px < 0 || py < 0 || px >= kSide || py >= kSide) continue;
          float v = 255.f * std::max(0.f, 1.f - std::hypot(px - x, py - y) / 2.2f);
          auto& c = img[off + size_t(py) * kSide + size_t(px)];
          c = char(std::max<int>(static_cast<unsigned char>(c), int(v)));
        }
    }
  }
}

void write_split(const std::string& dataroot, bool train, int64_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::string images, labels;
  put_be32(images, 0x803);
  put_be32(images, uint32_t(n));
  put_be32(images, kSide);
  put_be32(images, kSide);
  put_be32(labels, 0x801);
  put_be32(labels, uint32_t(n));
  std::vector<std::vector<Stroke>> templates;
  for (int c = 0; c < 10; ++c) templates.push_back(class_template(c));
  size_t header = images.size();
  images.resize(header + size_t(n) * kSide * kSide, '\0');
  for (int64_t i = 0; i < n; ++i) {
    int label = int(g() % 10);
    labels.push_back(char(label));
    draw(images, header + size_t(i) * kSide * kSide, templates[label], g);
  }
  write_text_atomic(split_file(dataroot, train, true), images);
  write_text_atomic(split_file(dataroot, train, false), labels);
}

}  // namespace

std::string mnist_raw_dir(const std::string& dataroot) { return dataroot + "/mnist/MNIST/raw"; }

MnistSplit read_mnist(const std::string& dataroot, bool train) {
  auto [idims, ibytes] = read_idx(split_file(dataroot, train, true), 0x803, dataroot);
  auto [ldims, lbytes] = read_idx(split_file(dataroot, train, false), 0x801, dataroot);
  if (idims[1] != kSide || idims[2] != kSide)
    bad_file(split_file(dataroot, train, true), "images are not 28x28", dataroot);
  if (idims[0] != ldims[0])
    bad_file(split_file(dataroot, train, false), "label count differs from image count", dataroot);
  if (std::any_of(lbytes.begin(), lbytes.end(), [](char c) { return static_cast<unsigned char>(c) > 9; }))
    bad_file(split_file(dataroot, train, false), "label outside 0..9", dataroot);
  MnistSplit s;
  s.images = torch::from_blob(ibytes.data(), {idims[0], kSide, kSide}, torch::kUInt8).clone();
  s.labels = torch::from_blob(lbytes.data(), {ldims[0]}, torch::kUInt8).to(torch::kLong);
  return s;
}

void generate_mnist(const std::string& dataroot, double scale) {
  if (!(scale > 0 && scale <= 1)) throw std::invalid_argument("mnist: --scale must be in (0, 1]");
  std::filesystem::create_directories(mnist_raw_dir(dataroot));
  int64_t ntrain = std::max<int64_t>(1, std::llround(60000 * scale));
  int64_t ntest = std::max<int64_t>(1, std::llround(10000 * scale));
  write_split(dataroot, true, ntrain, 1);
  write_split(dataroot, false, ntest, 2);
  record_manifest(dataroot, "mnist",
                  {{"synthetic", true}, {"generator", "milarun"}, {"scale", scale}, {"files", 4},
                   {"train", ntrain}, {"test", ntest}, {"layout", "mnist/MNIST/raw (idx)"}});
}

bool mnist_present(const std::string& dataroot) {
  struct stat st{};
  for (bool train : {true, false})
    for (bool images : {true, false})
      if (::stat(split_file(dataroot, train, images).c_str(), &st) != 0) return false;
  return true;
}

nlohmann::json mnist_provenance(const std::string& dataroot) { return dataset_provenance(dataroot, "mnist"); }

}  // namespace milabench
