#include "training/token_loader.hpp"

#include <algorithm>

#include "data/data_error.hpp"
#include "data/token_shards.hpp"

namespace milabench {

TokenLoader::TokenLoader(const std::string& dir, int64_t vocab, int64_t batch, int64_t seq, torch::Device device,
                         const std::string& remake, int rank, int world_size)
    : files_(list_token_shards(dir).train),
      vocab_(vocab),
      batch_(batch),
      seq_(seq),
      rank_(rank),
      world_(std::max(1, world_size)),
      device_(device) {
  if (files_.empty()) throw DataError(dir + ": no llm.c train shard (*_train_*.bin); make them: " + remake);
  const bool pin = device.is_cuda();
  for (auto& h : host_) {
    h = torch::empty({batch * seq + 1}, torch::kLong);
    if (pin) h = h.pin_memory();
  }
  load(0);
}

void TokenLoader::load(size_t shard) {
  tokens_ = read_token_shard(files_[shard], vocab_);
  const int64_t step = batch_ * seq_ * world_ + 1;
  if (int64_t(tokens_.size()) < step)
    throw DataError(files_[shard] + ": " + std::to_string(tokens_.size()) + " tokens, fewer than one step (" +
                    std::to_string(step) + (world_ > 1 ? " over " + std::to_string(world_) + " ranks" : "") + ")");
  shard_ = shard;
  pos_ = batch_ * seq_ * rank_;
}

std::pair<torch::Tensor, torch::Tensor> TokenLoader::next() {
  const int64_t n = batch_ * seq_;
  torch::Tensor& h = host_[turn_++ & 1];
  int64_t* dst = h.data_ptr<int64_t>();
  for (int64_t i = 0; i <= n; ++i) dst[i] = int64_t(tokens_[size_t(pos_ + i)]);
  pos_ += n * world_;
  if (pos_ + n * world_ + 1 > int64_t(tokens_.size())) {
    const size_t next = (shard_ + 1) % files_.size();
    if (next == 0) ++wraps_;
    if (files_.size() > 1)
      load(next);
    else
      pos_ = n * rank_;  // one shard: start it again without re-reading it
  }
  auto buf = device_.is_cuda() ? h.to(device_, /*non_blocking=*/true) : h.clone();
  return {buf.slice(0, 0, n).view({batch_, seq_}), buf.slice(0, 1, n + 1).view({batch_, seq_})};
}

}  // namespace milabench
