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

#include "data/data_error.hpp"
#include "data/idx_format.hpp"
#include "data/manifest.hpp"
#include "results/atomic_write.hpp"
#include "sys/read_file.hpp"

namespace milabench {
namespace {

std::string split_file(const std::string& dataroot, bool train, bool images) {
  return mnist_raw_dir(dataroot) + "/" + (train ? "train" : "t10k") +
         (images ? "-images-idx3-ubyte" : "-labels-idx1-ubyte");
}

[[noreturn]] void bad_file(const std::string& path, const std::string& what, const std::string& dataroot) {
  throw DataError("MNIST file " + path + ": " + what + "; run: " + dataset_remake_command("mnist", dataroot));
}

void put_be32(std::string& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(char((v >> s) & 0xff));
}

// The whole file; throws naming it (and the command that makes it) when missing.
std::string whole_file(const std::string& path, const std::string& dataroot) {
  std::string why;
  auto bytes = read_whole_file(path, &why);
  if (!bytes) bad_file(path, why, dataroot);
  return std::move(*bytes);
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
          if (px < 0 || py < 0 || px >= kMnistSide || py >= kMnistSide) continue;
          float v = 255.f * std::max(0.f, 1.f - std::hypot(px - x, py - y) / 2.2f);
          auto& c = img[off + size_t(py) * kMnistSide + size_t(px)];
          c = char(std::max<int>(static_cast<unsigned char>(c), int(v)));
        }
    }
  }
}

void write_split(const std::string& dataroot, bool train, int64_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::string images, labels;
  put_be32(images, kIdxImagesMagic);
  put_be32(images, uint32_t(n));
  put_be32(images, kMnistSide);
  put_be32(images, kMnistSide);
  put_be32(labels, kIdxLabelsMagic);
  put_be32(labels, uint32_t(n));
  std::vector<std::vector<Stroke>> templates;
  for (int c = 0; c < 10; ++c) templates.push_back(class_template(c));
  size_t header = images.size();
  images.resize(header + size_t(n) * kMnistSide * kMnistSide, '\0');
  for (int64_t i = 0; i < n; ++i) {
    int label = int(g() % 10);
    labels.push_back(char(label));
    draw(images, header + size_t(i) * kMnistSide * kMnistSide, templates[label], g);
  }
  write_text_atomic(split_file(dataroot, train, true), images);
  write_text_atomic(split_file(dataroot, train, false), labels);
}

}  // namespace

std::string mnist_raw_dir(const std::string& dataroot) { return dataroot + "/mnist/MNIST/raw"; }

MnistSplit read_mnist(const std::string& dataroot, bool train) {
  const std::string images_path = split_file(dataroot, train, true), labels_path = split_file(dataroot, train, false);
  const std::string images = whole_file(images_path, dataroot), labels = whole_file(labels_path, dataroot);
  MnistSplitView v;
  try {
    v = parse_mnist_split(images, labels, images_path, labels_path);
  } catch (const DataFormatError& e) {  // "PATH: problem" -> add the command that remakes the data
    throw DataError("MNIST file " + std::string(e.what()) + "; run: " + dataset_remake_command("mnist", dataroot));
  }
  MnistSplit s;
  s.images =
      torch::from_blob(const_cast<char*>(v.images.data()), {v.count, kMnistSide, kMnistSide}, torch::kUInt8).clone();
  s.labels = torch::from_blob(const_cast<char*>(v.labels.data()), {v.count}, torch::kUInt8).to(torch::kLong);
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
                  {{"synthetic", true},
                   {"generator", "milarun"},
                   {"scale", scale},
                   {"files", 4},
                   {"train", ntrain},
                   {"test", ntest},
                   {"layout", "mnist/MNIST/raw (idx)"}});
}

bool mnist_present(const std::string& dataroot) {
  struct stat st {};
  for (bool train : {true, false})
    for (bool images : {true, false})
      if (::stat(split_file(dataroot, train, images).c_str(), &st) != 0) return false;
  return true;
}

nlohmann::json mnist_provenance(const std::string& dataroot) { return dataset_provenance(dataroot, "mnist"); }

}  // namespace milabench
