#include "data/fake_imagenet.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "data/jpeg.hpp"
#include "data/manifest.hpp"
#include "data/parallel_jobs.hpp"
#include "sys/cpus.hpp"
#include "sys/splitmix.hpp"
#include "sys/staged_folder.hpp"

namespace fs = std::filesystem;

namespace milabench {
namespace {

struct Split {
  const char* name;
  int64_t count;
  uint64_t seed;
};

void fill_noise(std::vector<uint8_t>& pixels, uint64_t seed) {
  uint64_t state = seed;
  size_t i = 0;
  for (; i + 8 <= pixels.size(); i += 8) {
    uint64_t r = splitmix64_next(state);
    std::memcpy(pixels.data() + i, &r, 8);
  }
  for (; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(splitmix64_next(state));
}

}  // namespace

FakeImagenetCounts fake_imagenet_counts(double scale) {
  auto n = [scale](double full) { return std::max<int64_t>(1, std::llround(full * scale)); };
  return {n(100000), n(5000), n(5000)};
}

std::string fake_imagenet_dir(const std::string& dataroot) { return dataroot + "/ImageNet"; }

bool fake_imagenet_present(const std::string& dataroot) {
  std::error_code ec;
  fs::directory_iterator classes(fake_imagenet_dir(dataroot) + "/train", ec), end;
  for (; !ec && classes != end; classes.increment(ec)) {
    if (!classes->is_directory(ec)) continue;
    fs::directory_iterator files(classes->path(), ec);
    if (!ec && files != end) return true;
  }
  return false;
}

void generate_fake_imagenet(const std::string& dataroot, const DatasetOptions& options) {
  if (!(options.scale > 0 && options.scale <= 1))
    throw std::invalid_argument("fake_imagenet: --scale must be in (0, 1], got " + std::to_string(options.scale));
  if (!options.force && fake_imagenet_present(dataroot)) return;
  StagedFolder staged(fake_imagenet_dir(dataroot), "fake_imagenet", "partial");
  const fs::path& tmp_dir = staged.path();

  const FakeImagenetCounts counts = fake_imagenet_counts(options.scale);
  const std::vector<Split> splits = {{"train", counts.train, 1}, {"val", counts.val, 2}, {"test", counts.test, 3}};
  // Class folders first (single thread), then images from a shared counter.
  std::vector<int64_t> offsets;  // first global job index of each split
  int64_t total = 0;
  for (const auto& s : splits) {
    offsets.push_back(total);
    total += s.count;
    for (int64_t c = 0; c < std::min<int64_t>(s.count, kFakeImagenetClasses); ++c)
      staged.make_dir(fs::path(s.name) / std::to_string(c));
  }

  run_parallel_jobs(total, options.threads, [&](int64_t job) {
    thread_local JpegCodec codec;
    thread_local std::vector<uint8_t> pixels(size_t(kFakeImagenetSide) * kFakeImagenetSide * 3);
    size_t k = splits.size() - 1;
    while (job < offsets[k]) --k;
    const int64_t i = job - offsets[k];
    fill_noise(pixels, splits[k].seed * 0x100000000ull + uint64_t(i));
    std::string jpeg = codec.encode(pixels.data(), kFakeImagenetSide, kFakeImagenetSide, kFakeImagenetQuality);
    write_file_or_throw(
        (tmp_dir / splits[k].name / std::to_string(i % kFakeImagenetClasses) / (std::to_string(i) + ".jpeg")).string(),
        jpeg, "fake_imagenet");
  });
  staged.publish(/*replace=*/true);
  record_manifest(dataroot, "fake_imagenet",
                  {{"synthetic", true},
                   {"generator", "milarun (random-noise JPEGs, TurboJPEG quality 75, 4:2:0)"},
                   {"scale", options.scale},
                   {"train", counts.train},
                   {"val", counts.val},
                   {"test", counts.test},
                   {"image_size", {kFakeImagenetSide, kFakeImagenetSide}},
                   {"classes", std::min<int64_t>(counts.train, kFakeImagenetClasses)},
                   {"layout", "ImageNet/{train,val,test}/<class>/<i>.jpeg"}});
}

}  // namespace milabench
