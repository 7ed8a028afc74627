// Decode-only ceiling for the image loader, and the loader's own per-image
// work, on the same files with the same T threads in one run: how many JPEGs
// per second libjpeg-turbo alone decodes (full size, and at the DCT scale the
// loader would pick for a whole-image 224 crop), and how many the loader's
// transform (RandomResizedCrop 224 + flip + normalise into a float CHW
// buffer, as ImageLoader's workers run it) turns out. Files are read from
// disk each time, as the loader does. No torch, no batching.
//
//   jpeg_decode_bench DIR THREADS SECONDS
//
// Prints one line per mode: "<mode>: <images/s> images/s (<n> in <s> s)",
// then the transform's rate as a fraction of the full-size decode rate.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "data/image_transform.hpp"
#include "data/jpeg.hpp"

namespace fs = std::filesystem;
using namespace milabench;

// One image's work: returns true when it produced an image.
using Work = std::function<bool(JpegCodec&, const std::vector<uint8_t>&, std::mt19937_64&)>;

static double rate(const std::vector<std::string>& files, int threads, double seconds, const Work& work,
                   int64_t* total) {
  std::atomic<int64_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  auto worker = [&](int id) {
    JpegCodec codec;
    std::vector<uint8_t> bytes;
    std::string err;
    std::mt19937_64 rng(uint64_t(id) + 1);
    while (!stop) {
      const std::string& f = files[size_t(next++ % int64_t(files.size()))];
      if (read_file_bytes(f, &bytes, &err) && work(codec, bytes, rng)) ++done;
    }
  };
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker, i);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : pool) t.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *total = done;
  return double(done) / elapsed;
}

static Work decode_at(bool scaled) {
  return [scaled](JpegCodec& codec, const std::vector<uint8_t>& bytes, std::mt19937_64&) {
    thread_local RgbImage img;
    std::string err;
    JpegHeader h;
    if (!codec.header(bytes.data(), bytes.size(), &h, &err)) return false;
    JpegScale s = scaled ? smallest_scale_covering(h.width, h.height, 224, 224) : JpegScale{1, 1};
    return codec.decode(bytes.data(), bytes.size(), s, &img, &err);
  };
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: jpeg_decode_bench DIR THREADS SECONDS\n");
    return 2;
  }
  std::vector<std::string> files;
  for (auto& e : fs::recursive_directory_iterator(argv[1]))
    if (e.is_regular_file()) files.push_back(e.path().string());
  if (files.empty()) {
    std::fprintf(stderr, "jpeg_decode_bench: no files under %s\n", argv[1]);
    return 1;
  }
  const int threads = std::atoi(argv[2]);
  const double seconds = std::atof(argv[3]);
  use_single_threaded_opencv();
  const RandomResizedCropFlip transform;
  const Work loader_work = [&](JpegCodec& codec, const std::vector<uint8_t>& bytes, std::mt19937_64& rng) {
    thread_local std::vector<float> out(3 * 224 * 224);
    std::string err;
    return transform.apply(codec, bytes.data(), bytes.size(), rng, out.data(), &err);
  };
  struct Mode {
    const char* name;
    Work work;
  };
  const Mode modes[] = {{"full-size decode", decode_at(false)},
                        {"decode at loader DCT scale", decode_at(true)},
                        {"loader transform (crop+resize+flip+normalise)", loader_work}};
  double rates[3];
  for (int m = 0; m < 3; ++m) {
    int64_t n = 0;
    rates[m] = rate(files, threads, seconds, modes[m].work, &n);
    std::printf("%s: %.1f images/s (%lld in %.1f s, %d threads, %zu files)\n", modes[m].name, rates[m], (long long)n,
                seconds, threads, files.size());
  }
  std::printf("transform / full-size decode: %.2f\n", rates[2] / rates[0]);
  return 0;
}
