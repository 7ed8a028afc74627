// Training samples of the original's recommendation workload (MLPerf NCF
// reference, CFTrainDataset + DataLoader(shuffle=True)), without torch.
// Leave-one-out: each user's most recent rating is held out as its test item;
// the others are the positives. An epoch has positives x (1 + negatives)
// samples: sample k is positive k / (1+neg) when k % (1+neg) == 0, else a
// negative for the same user: an item drawn uniformly from all items, redrawn
// while the user rated it in the train set. Epochs visit samples in a random
// order (a keyed pseudo-random permutation, so no 100M-entry index array).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "data/movielens.hpp"

namespace milabench {

// A bijection of [0, n) chosen by `key`: a 4-round Feistel network on the
// smallest even bit width covering n, cycle-walking out-of-range values.
class FeistelPermutation {
 public:
  FeistelPermutation(uint64_t n, uint64_t key);
  uint64_t operator()(uint64_t i) const;
  uint64_t size() const { return n_; }

 private:
  uint64_t encrypt(uint64_t x) const;
  uint64_t n_, half_bits_, mask_, keys_[4];
};

struct NcfBatch {
  std::vector<int64_t> user, item;
  std::vector<float> label;  // 1 positive, 0 negative
  size_t size() const { return user.size(); }
};

class NcfTrainSet {
 public:
  // Throws std::invalid_argument when negatives < 0 or no user has a train
  // pair (every user rated once).
  NcfTrainSet(const Ml20m& data, int negatives);

  int64_t users() const { return users_; }
  int64_t items() const { return items_; }
  int64_t positives() const { return int64_t(pos_item_.size()); }
  int64_t samples_per_epoch() const { return positives() * (negatives_ + 1); }
  int32_t test_item(int64_t user) const { return test_item_[size_t(user)]; }
  // Whether `user` rated `item` in the train set (binary search).
  bool rated(int64_t user, int32_t item) const;

  // Samples [first, first + count) of epoch `epoch` (order keyed by `seed`);
  // negatives drawn from a generator seeded by (seed, epoch, first).
  void fill(uint64_t seed, int64_t epoch, int64_t first, int64_t count, NcfBatch& out) const;

 private:
  int64_t users_, items_;
  int negatives_;
  std::vector<int32_t> pos_user_, pos_item_;  // positives, grouped by user
  std::vector<int64_t> begin_;                // per user into sorted_
  std::vector<int32_t> sorted_;               // each user's train items, ascending
  std::vector<int32_t> test_item_;            // -1 when the user has no rating
};

// Batches of `batch` samples in order, epoch after epoch (the last batch of
// an epoch may be short, as DataLoader's drop_last=False), made ahead by
// `workers` threads (0 = on the caller's thread). Deterministic for a seed
// whatever the worker count.
class NcfLoader {
 public:
  NcfLoader(const NcfTrainSet& set, int64_t batch, int workers, uint64_t seed);
  ~NcfLoader();
  NcfLoader(const NcfLoader&) = delete;
  NcfLoader& operator=(const NcfLoader&) = delete;
  NcfBatch next();

 private:
  struct Queue {
    std::mutex m;
    std::condition_variable cv;
    std::deque<NcfBatch> q;
  };
  void make(int64_t g, NcfBatch& out) const;
  void work(int w);

  const NcfTrainSet& set_;
  int64_t batch_, per_epoch_;
  uint64_t seed_;
  int64_t next_ = 0;
  std::atomic<bool> stop_{false};
  std::vector<std::unique_ptr<Queue>> queues_;
  std::vector<std::thread> threads_;
};

}  // namespace milabench
