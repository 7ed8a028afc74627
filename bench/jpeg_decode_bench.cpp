// Decode-only ceiling for the image loader: how many JPEGs per second
// libjpeg-turbo alone decodes from a folder with T threads (files read from
// disk each time, as the loader does), at full size and at the DCT scale the
// loader would pick for a whole-image 224 crop. No resize, no tensors.
//
//   jpeg_decode_bench DIR THREADS SECONDS
//
// Prints one line per mode: "<mode>: <images/s> images/s (<n> in <s> s)".
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "data/jpeg.hpp"

namespace fs = std::filesystem;
using namespace milabench;

static double decode_rate(const std::vector<std::string>& files, int threads, double seconds, bool scaled,
                          int64_t* total) {
  std::atomic<int64_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  auto worker = [&] {
    JpegCodec codec;
    std::vector<uint8_t> bytes;
    RgbImage img;
    std::string err;
    while (!stop) {
      const std::string& f = files[size_t(next++ % int64_t(files.size()))];
      JpegHeader h;
      if (!read_file_bytes(f, &bytes, &err) || !codec.header(bytes.data(), bytes.size(), &h, &err)) continue;
      JpegScale s = scaled ? smallest_scale_covering(h.width, h.height, 224, 224) : JpegScale{1, 1};
      if (codec.decode(bytes.data(), bytes.size(), s, &img, &err)) ++done;
    }
  };
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : pool) t.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *total = done;
  return done / elapsed;
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
  for (bool scaled : {false, true}) {
    int64_t n = 0;
    double rate = decode_rate(files, threads, seconds, scaled, &n);
    std::printf("%s: %.1f images/s (%lld in %.1f s, %d threads, %zu files)\n",
                scaled ? "decode at loader DCT scale" : "full-size decode", rate, (long long)n, seconds, threads,
                files.size());
  }
  return 0;
}
