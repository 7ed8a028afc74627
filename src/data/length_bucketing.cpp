#include "data/length_bucketing.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace milabench {

std::vector<std::vector<int64_t>> bucketing_batches(const std::vector<int32_t>& lengths, const BucketingOptions& opt,
                                                    uint64_t seed, int64_t epoch) {
  if (opt.batch_size < 1) throw std::invalid_argument("--batch-size must be >= 1");
  const int64_t n = int64_t(lengths.size());
  const int64_t num_samples = n / opt.batch_size * opt.batch_size;
  std::mt19937_64 g(seed * 1000003ULL + uint64_t(epoch));
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), g);
  order.resize(size_t(num_samples));

  if (opt.bucket) {
    const int64_t shard = opt.batch_size * std::max<int64_t>(1, opt.batches_in_shard);
    for (int64_t s = 0; s < num_samples; s += shard) {
      auto b = order.begin() + s, e = order.begin() + std::min(num_samples, s + shard);
      std::stable_sort(b, e, [&](int64_t x, int64_t y) { return lengths[size_t(x)] < lengths[size_t(y)]; });
    }
  }
  std::vector<std::vector<int64_t>> batches;
  for (int64_t i = 0; i < num_samples; i += opt.batch_size)
    batches.emplace_back(order.begin() + i, order.begin() + i + opt.batch_size);
  if (opt.bucket) std::shuffle(batches.begin(), batches.end(), g);  // the global reshuffle
  return batches;
}

}  // namespace milabench
