#include "data/ncf_sampler.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "sys/splitmix.hpp"

namespace milabench {
namespace {

constexpr int kQueueDepth = 2;  // batches made ahead per worker

}  // namespace

FeistelPermutation::FeistelPermutation(uint64_t n, uint64_t key) : n_(n), half_bits_(1) {
  while (half_bits_ < 32 && (uint64_t(1) << (2 * half_bits_)) < n) ++half_bits_;
  mask_ = (uint64_t(1) << half_bits_) - 1;
  for (int r = 0; r < 4; ++r) keys_[r] = splitmix64(key * 4 + uint64_t(r));
}

uint64_t FeistelPermutation::encrypt(uint64_t x) const {
  uint64_t left = x >> half_bits_, right = x & mask_;
  for (uint64_t k : keys_) {
    uint64_t next = left ^ (splitmix64(right ^ k) & mask_);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

uint64_t FeistelPermutation::operator()(uint64_t i) const {
  uint64_t x = encrypt(i);
  while (x >= n_) x = encrypt(x);  // cycle walking: stays a bijection of [0, n)
  return x;
}

NcfTrainSet::NcfTrainSet(const Ml20m& d, int negatives) : users_(d.users), items_(d.items), negatives_(negatives) {
  if (negatives < 0) throw std::invalid_argument("recom: --negative-samples must be >= 0");
  test_item_.assign(size_t(users_), -1);
  begin_.assign(size_t(users_) + 1, 0);
  for (int64_t u = 0; u < users_; ++u) {
    const int64_t first = d.user_begin[size_t(u)], last = d.user_begin[size_t(u) + 1];
    if (last > first) test_item_[size_t(u)] = d.item[size_t(last - 1)];  // the most recent
    for (int64_t k = first; k + 1 < last; ++k) {
      pos_user_.push_back(int32_t(u));
      pos_item_.push_back(d.item[size_t(k)]);
    }
    sorted_.insert(sorted_.end(), pos_item_.end() - std::max<int64_t>(0, last - first - 1), pos_item_.end());
    std::sort(sorted_.begin() + begin_[size_t(u)], sorted_.end());
    begin_[size_t(u) + 1] = int64_t(sorted_.size());
  }
  if (pos_item_.empty())
    throw std::invalid_argument("recom: no training pair left after holding out each user's last rating");
}

bool NcfTrainSet::rated(int64_t user, int32_t item) const {
  auto first = sorted_.begin() + begin_[size_t(user)], last = sorted_.begin() + begin_[size_t(user) + 1];
  return std::binary_search(first, last, item);
}

void NcfTrainSet::fill(uint64_t seed, int64_t epoch, int64_t first, int64_t count, NcfBatch& out) const {
  const FeistelPermutation perm(uint64_t(samples_per_epoch()), splitmix64(seed) ^ uint64_t(epoch));
  std::mt19937_64 g(splitmix64(seed ^ splitmix64(uint64_t(epoch) * 0x10000000ull + uint64_t(first))));
  std::uniform_int_distribution<int32_t> any_item(0, int32_t(items_ - 1));
  out.user.resize(size_t(count));
  out.item.resize(size_t(count));
  out.label.resize(size_t(count));
  for (int64_t k = 0; k < count; ++k) {
    const uint64_t idx = perm(uint64_t(first + k));
    const size_t p = size_t(idx / uint64_t(negatives_ + 1));
    const int32_t u = pos_user_[p];
    out.user[size_t(k)] = u;
    if (idx % uint64_t(negatives_ + 1) == 0) {
      out.item[size_t(k)] = pos_item_[p];
      out.label[size_t(k)] = 1.f;
    } else {
      int32_t j = any_item(g);
      // A user who rated every item has no negative: keep the draw (label 0).
      for (int tries = 0; rated(u, j) && tries < 1000000; ++tries) j = any_item(g);
      out.item[size_t(k)] = j;
      out.label[size_t(k)] = 0.f;
    }
  }
}

NcfLoader::NcfLoader(const NcfTrainSet& set, int64_t batch, int workers, uint64_t seed)
    : set_(set), batch_(batch), seed_(seed) {
  if (batch < 1) throw std::invalid_argument("recom: --batch-size must be >= 1");
  per_epoch_ = (set.samples_per_epoch() + batch - 1) / batch;
  for (int w = 0; w < workers; ++w) queues_.push_back(std::make_unique<Queue>());
  for (int w = 0; w < workers; ++w) threads_.emplace_back([this, w] { work(w); });
}

NcfLoader::~NcfLoader() {
  stop_ = true;
  for (auto& q : queues_) {
    std::lock_guard<std::mutex> lock(q->m);
    q->cv.notify_all();
  }
  for (auto& t : threads_) t.join();
}

void NcfLoader::make(int64_t g, NcfBatch& out) const {
  const int64_t epoch = g / per_epoch_, first = (g % per_epoch_) * batch_;
  set_.fill(seed_, epoch, first, std::min(batch_, set_.samples_per_epoch() - first), out);
}

void NcfLoader::work(int w) {
  Queue& q = *queues_[size_t(w)];
  for (int64_t g = w; !stop_; g += int64_t(queues_.size())) {
    NcfBatch b;
    make(g, b);
    std::unique_lock<std::mutex> lock(q.m);
    q.cv.wait(lock, [&] { return stop_ || q.q.size() < kQueueDepth; });
    if (stop_) return;
    q.q.push_back(std::move(b));
    q.cv.notify_all();
  }
}

NcfBatch NcfLoader::next() {
  const int64_t g = next_++;
  NcfBatch b;
  if (queues_.empty()) {
    make(g, b);
    return b;
  }
  Queue& q = *queues_[size_t(g % int64_t(queues_.size()))];
  std::unique_lock<std::mutex> lock(q.m);
  q.cv.wait(lock, [&] { return !q.q.empty(); });
  b = std::move(q.q.front());
  q.q.pop_front();
  q.cv.notify_all();
  return b;
}

}  // namespace milabench
