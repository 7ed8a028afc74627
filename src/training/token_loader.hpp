// The host reader of llm.c's train loop (train_gpt2.py DistributedDataLoader):
// the train shards of a token dataset in name order, B*T+1 contiguous tokens
// per step (inputs = the first B*T, targets = the same shifted by one). Rank
// r of W starts each shard at B*T*r and advances by B*T*W, so the ranks read
// disjoint batches (one rank: from 0 by B*T); when the next step's batches
// of all ranks would run past the shard it moves to the next shard, after
// the last back to the first (a wrap, counted). Batches land in a pinned host buffer and are copied with
// non_blocking to CUDA (two buffers in turn: a buffer is rewritten only after
// the step that read it has synchronised, the loss read of each step).
#pragma once
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace milabench {

class TokenLoader {
 public:
  // Reads the shard list of `dir`; throws DataError naming `dir` and
  // `remake` (the command that makes the data) when it has no train shard.
  // Each shard is read (and checked against `vocab`) when reached.
  // A shard with fewer tokens than one step of all ranks (B*T*W + 1) is a
  // DataError naming it.
  TokenLoader(const std::string& dir, int64_t vocab, int64_t batch, int64_t seq, torch::Device device,
              const std::string& remake, int rank = 0, int world_size = 1);
  // (inputs, targets), each [B, T] int64 on the device.
  std::pair<torch::Tensor, torch::Tensor> next();
  int64_t wraps() const { return wraps_; }
  int64_t shards() const { return int64_t(files_.size()); }

 private:
  void load(size_t shard);
  std::vector<std::string> files_;
  int64_t vocab_, batch_, seq_, rank_, world_;
  torch::Device device_;
  std::vector<uint32_t> tokens_;
  size_t shard_ = 0;
  int64_t pos_ = 0, wraps_ = 0, turn_ = 0;
  torch::Tensor host_[2];
};

}  // namespace milabench
