// Synthetic MovieLens-20M ratings.csv (contract in movielens.hpp).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

#include "data/manifest.hpp"
#include "data/movielens.hpp"
#include "sys/atomic_file.hpp"
#include "sys/cpus.hpp"

namespace milabench {
namespace {

constexpr int64_t kUsersPerChunk = 512;
constexpr int64_t kMaxPerUser = 9254;                              // the real set's most active user
constexpr int64_t kFirstTime = 789652009, kLastTime = 1427784002;  // the real set's range
constexpr int32_t kMaxMovieId = 131262;
// Per-user count = 20 + lognormal: median 68, mean 144 as the real set.
constexpr double kCountMu = 3.871, kCountSigma = 1.38;
// Half-star shares of the real set, 0.5 .. 5.0.
constexpr double kStarShare[] = {1.1, 3.3, 1.4, 7.2, 4.4, 21.4, 11.0, 27.8, 7.7, 14.5};

struct Shape {
  int64_t users, items;
  std::vector<double> popularity_cdf;  // over item indices (a fixed shuffle of Zipf ranks)
  std::vector<int32_t> movie_id;       // item index -> sparse movieId, increasing
};

Shape make_shape(double scale) {
  Shape s;
  s.users = std::max<int64_t>(8, std::llround(double(kMl20mUsers) * scale));
  s.items = std::max<int64_t>(100, std::llround(double(kMl20mItems) * scale));
  std::vector<int64_t> rank(size_t(s.items));
  std::iota(rank.begin(), rank.end(), 0);
  std::shuffle(rank.begin(), rank.end(), std::mt19937_64(7));
  // 90% Zipf (shift 10) over popularity ranks + 10% uniform: every movie gets some ratings.
  double zsum = 0;
  for (int64_t r = 0; r < s.items; ++r) zsum += 1.0 / double(r + 10);
  s.popularity_cdf.resize(size_t(s.items));
  double acc = 0;
  for (int64_t i = 0; i < s.items; ++i)
    s.popularity_cdf[size_t(i)] = acc += 0.9 / (double(rank[size_t(i)] + 10) * zsum) + 0.1 / double(s.items);
  for (auto& c : s.popularity_cdf) c /= acc;
  s.movie_id.resize(size_t(s.items));
  for (int64_t i = 0; i < s.items; ++i)
    s.movie_id[size_t(i)] = int32_t(1 + i * (kMaxMovieId - 1) / std::max<int64_t>(1, s.items - 1));
  return s;
}

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Rows of users [first, last), user ids first+1.. (1-based as the real file).
std::string chunk_rows(const Shape& s, int64_t first, int64_t last, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::lognormal_distribution<double> extra(kCountMu, kCountSigma);
  std::uniform_real_distribution<double> u01(0, 1);
  std::discrete_distribution<int> stars(std::begin(kStarShare), std::end(kStarShare));
  const int64_t cap = std::min<int64_t>(kMaxPerUser, s.items / 2);
  std::vector<int64_t> taken(size_t(s.items), -1);
  std::vector<int32_t> mine;
  std::string out;
  for (int64_t u = first; u < last; ++u) {
    int64_t n = std::min<int64_t>(cap, kMl20mMinRatings + std::llround(extra(g)));
    mine.clear();
    while (int64_t(mine.size()) < n) {
      auto it = std::upper_bound(s.popularity_cdf.begin(), s.popularity_cdf.end(), u01(g));
      int32_t i = int32_t(std::min<int64_t>(it - s.popularity_cdf.begin(), s.items - 1));
      if (taken[size_t(i)] != u) taken[size_t(i)] = u, mine.push_back(i);
    }
    std::sort(mine.begin(), mine.end());  // the real file lists a user's movies by movieId
    // Half the users rate in one sitting (a day), the others over up to ~8 years.
    double span = u01(g) < 0.5 ? 86400.0 : std::exp(u01(g) * std::log(2.5e8 / 86400.0)) * 86400.0;
    int64_t t0 = kFirstTime + int64_t(u01(g) * double(kLastTime - kFirstTime - int64_t(span)));
    for (int32_t i : mine) {
      append_int(out, u + 1);
      out += ',';
      append_int(out, s.movie_id[size_t(i)]);
      int half = stars(g) + 1;  // 1..10 half stars
      out += ',';
      append_int(out, half / 2);
      out += half % 2 ? ".5," : ".0,";
      append_int(out, t0 + int64_t(u01(g) * span));
      out += '\n';
    }
  }
  return out;
}

}  // namespace

void generate_ml20m(const std::string& dataroot, const DatasetOptions& opts) {
  if (!(opts.scale > 0 && opts.scale <= 1)) throw std::invalid_argument("ml20m: --scale must be in (0, 1]");
  std::filesystem::create_directories(ml20m_dir(dataroot));
  const Shape shape = make_shape(opts.scale);
  const int64_t chunks = (shape.users + kUsersPerChunk - 1) / kUsersPerChunk;
  const unsigned nthreads =
      unsigned(std::min<int64_t>(chunks, opts.threads ? opts.threads : static_cast<unsigned>(usable_cpu_count())));
  const std::string csv = ml20m_csv(dataroot);
  AtomicFile out(csv);  // whole or not at all (sys/atomic_file.hpp)
  out.write("userId,movieId,rating,timestamp\n");

  // Workers fill chunk slots at most 4 per thread ahead of the writer (this thread).
  std::vector<std::string> slot(static_cast<size_t>(chunks));
  std::vector<char> ready(size_t(chunks), 0);
  std::mutex m;
  std::condition_variable cv;
  std::atomic<int64_t> next{0};
  int64_t written = 0;
  const int64_t window = 4 * int64_t(nthreads);
  auto work = [&] {
    for (int64_t k; (k = next++) < chunks;) {
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return k < written + window; });
      }
      std::string rows = chunk_rows(shape, k * kUsersPerChunk, std::min(shape.users, (k + 1) * kUsersPerChunk),
                                    0x3120ull + uint64_t(k));
      std::lock_guard<std::mutex> lock(m);
      slot[size_t(k)] = std::move(rows);
      ready[size_t(k)] = 1;
      cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < nthreads; ++t) pool.emplace_back(work);
  int64_t rows = 0;
  std::string write_error;  // the first failed write; the workers are joined before it is thrown
  for (int64_t k = 0; k < chunks; ++k) {
    std::string text;
    {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return ready[size_t(k)] != 0; });
      text.swap(slot[size_t(k)]);
    }
    if (write_error.empty()) try {
        out.write(text);
      } catch (const std::exception& e) {
        write_error = e.what();
      }
    rows += std::count(text.begin(), text.end(), '\n');
    std::lock_guard<std::mutex> lock(m);
    written = k + 1;
    cv.notify_all();
  }
  for (auto& t : pool) t.join();
  if (!write_error.empty()) throw std::runtime_error(write_error);
  out.commit();
  // Convert now so that the workloads started in parallel find a fresh cache.
  Ml20m d = convert_ml20m_csv(csv, opts.threads);
  write_ml20m_cache(ml20m_cache(dataroot), d);
  record_manifest(dataroot, "ml20m",
                  {{"synthetic", true},
                   {"generator", "milarun"},
                   {"scale", opts.scale},
                   {"files", 2},
                   {"users", d.users},
                   {"items", d.items},
                   {"ratings", rows},
                   {"layout", "ml-20m/ratings.csv (+ ratings.bin cache)"}});
}

}  // namespace milabench
