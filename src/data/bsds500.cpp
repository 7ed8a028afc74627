#include "data/bsds500.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <vector>

#include "data/data_error.hpp"
#include "data/jpeg.hpp"
#include "data/manifest.hpp"
#include "data/parallel_jobs.hpp"
#include "sys/staged_folder.hpp"

namespace fs = std::filesystem;

namespace milabench {
namespace {

constexpr int kBsdsJpegQuality = 90;
constexpr const char* kImagesPath = "/BSR/BSDS500/data/images/";
const char* const kBsdsSplits[] = {"train", "val", "test"};

bool is_jpeg_file(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_regular_file(ec) && is_jpeg_filename(e.path().filename().string());
}

// A photo-like stand-in: per-channel linear gradients plus two random
// sinusoids and mild noise, so that it compresses and decodes like a natural
// image rather than like pure noise.
void fill_scene(std::vector<uint8_t>& rgb, int w, int h, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  float base[3], gx[3], gy[3], amp[3], fx[2], fy[2], phase[2];
  for (int c = 0; c < 3; ++c) {
    base[c] = 40 + 170 * u(rng);
    gx[c] = (u(rng) - 0.5f) * 120 / w;
    gy[c] = (u(rng) - 0.5f) * 120 / h;
    amp[c] = 10 + 30 * u(rng);
  }
  for (int k = 0; k < 2; ++k) {
    fx[k] = 0.002f + 0.05f * u(rng);
    fy[k] = 0.002f + 0.05f * u(rng);
    phase[k] = 6.2832f * u(rng);
  }
  std::uniform_int_distribution<int> noise(-12, 12);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float wave = std::sin(fx[0] * x + fy[0] * y + phase[0]) + std::sin(fx[1] * x - fy[1] * y + phase[1]);
      uint8_t* p = &rgb[(size_t(y) * w + x) * 3];
      for (int c = 0; c < 3; ++c) {
        const float v = base[c] + gx[c] * x + gy[c] * y + amp[c] * wave + float(noise(rng));
        p[c] = uint8_t(std::clamp(v, 0.f, 255.f));
      }
    }
}

}  // namespace

Bsds500Counts bsds500_counts(double scale) {
  auto n = [scale](double full) { return std::max<int64_t>(1, std::llround(full * scale)); };
  return {n(200), n(100), n(200)};
}

std::string bsds500_dir(const std::string& dataroot) { return dataroot + "/bsds500"; }

std::string bsds500_split_dir(const std::string& dataroot, const std::string& split) {
  return bsds500_dir(dataroot) + kImagesPath + split;
}

bool bsds500_present(const std::string& dataroot) {
  std::error_code ec;
  fs::directory_iterator it(bsds500_split_dir(dataroot, "train"), ec), end;
  for (; !ec && it != end; it.increment(ec))
    if (is_jpeg_file(*it)) return true;
  return false;
}

void generate_bsds500(const std::string& dataroot, const DatasetOptions& options) {
  if (!(options.scale > 0 && options.scale <= 1))
    throw std::invalid_argument("bsds500: --scale must be in (0, 1], got " + std::to_string(options.scale));
  if (!options.force && bsds500_present(dataroot)) return;
  StagedFolder staged(bsds500_dir(dataroot), "bsds500", "partial");

  const Bsds500Counts counts = bsds500_counts(options.scale);
  const int64_t per_split[] = {counts.train, counts.val, counts.test};
  std::vector<std::string> paths;  // job index -> file
  for (int s = 0; s < 3; ++s) {
    const std::string sub = std::string(kImagesPath + 1) + kBsdsSplits[s];  // relative to the folder
    staged.make_dir(sub);
    const std::string dir = (staged.path() / sub).string();
    for (int64_t i = 0; i < per_split[s]; ++i)
      paths.push_back(dir + "/" + std::to_string(100000 + paths.size()) + ".jpg");
  }
  run_parallel_jobs(int64_t(paths.size()), options.threads, [&](int64_t job) {
    thread_local JpegCodec codec;
    thread_local std::vector<uint8_t> rgb;
    const bool landscape = job % 3 != 2;
    const int w = landscape ? kBsds500LongSide : kBsds500ShortSide;
    const int h = landscape ? kBsds500ShortSide : kBsds500LongSide;
    rgb.resize(size_t(w) * h * 3);
    fill_scene(rgb, w, h, 0xB5D5500ull + uint64_t(job));
    write_file_or_throw(paths[size_t(job)], codec.encode(rgb.data(), w, h, kBsdsJpegQuality), "bsds500");
  });
  staged.publish(/*replace=*/true);
  record_manifest(dataroot, kBsds500Name,
                  {{"synthetic", true},
                   {"generator", "milarun (random smooth colour fields + noise, TurboJPEG quality 90, 4:2:0)"},
                   {"scale", options.scale},
                   {"train", counts.train},
                   {"val", counts.val},
                   {"test", counts.test},
                   {"image_sizes", {{kBsds500LongSide, kBsds500ShortSide}, {kBsds500ShortSide, kBsds500LongSide}}},
                   {"layout", "bsds500/BSR/BSDS500/data/images/{train,val,test}/<id>.jpg"}});
}

ImageFolder scan_bsds500(const std::string& dataroot, const std::string& split) {
  const std::string dir = bsds500_split_dir(dataroot, split);
  const std::string make = dataset_command(kBsds500Name, dataroot);
  ImageFolder folder;
  folder.root = dir;
  folder.classes = {split};
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw DataError("bsds500 folder " + dir + " is missing; run: " + make);
  std::vector<std::string> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_jpeg_file(*it)) files.push_back(it->path().string());
  if (ec) throw std::runtime_error("bsds500 folder " + dir + ": " + ec.message());
  if (files.empty()) throw DataError("bsds500 folder " + dir + " holds no .jpg; run: " + make);
  std::sort(files.begin(), files.end());
  for (auto& f : files) folder.samples.push_back({std::move(f), 0});
  return folder;
}

}  // namespace milabench
