// The original GNMT BucketingSampler (milabench's seq2seq/data/sampler.py):
// one epoch = a random permutation of the pairs cut to whole batches; with
// bucketing, the permutation is split into shards of 80 batches, each shard
// sorted by pair length (src + tgt ids), cut into batches, and the batches of
// all shards shuffled. A batch therefore holds sentences of similar length,
// drawn from one shard. Torch-free.
#pragma once
#include <cstdint>
#include <vector>

namespace milabench {

struct BucketingOptions {
  int64_t batch_size = 64;
  bool bucket = true;            // false: plain shuffled batches
  int64_t batches_in_shard = 80; // the original's constant
};

// Batches of indices into `lengths` for epoch `epoch` (deterministic in
// (seed, epoch)); the last partial batch is dropped (drop_last, as the
// original). Throws std::invalid_argument when batch_size < 1.
std::vector<std::vector<int64_t>> bucketing_batches(const std::vector<int32_t>& lengths,
                                                    const BucketingOptions& opt, uint64_t seed,
                                                    int64_t epoch);

}  // namespace milabench
