// ImageLoader: decodes and transforms images on its own threads and hands
// whole batches to the training thread, in the spirit of torch's DataLoader
// with num_workers=W, shuffle=True, pin_memory=True — but with threads, not
// processes, and one shared bounded queue of batches.
//
// Contract:
//  - An endless stream: epoch after epoch, each a fresh permutation (seeded,
//    so a run is reproducible whatever the thread timing), cut into batches as
//    torch's DataLoader(drop_last=False) cuts one epoch: batch_size samples
//    each, and a short last batch of (samples % batch_size) when it does not
//    divide. A dataset smaller than a batch gives one short batch per epoch.
//    Unlike a DataLoader re-created each epoch, the workers run on into the
//    next epoch's batches (prefetch does not stop at the epoch's end).
//  - At most `prefetch_batches` batches exist ahead of the consumer, each
//    filled by all workers together; memory is bounded by that.
//  - Batch memory is recycled: once the consumer has dropped every reference
//    to a batch it has taken (and to views of it), its buffers are refilled
//    for a later batch instead of allocating (and page-faulting) anew. A
//    consumer that keeps batches simply makes the loader allocate fresh ones.
//  - A file that cannot be read or decoded (corrupt, truncated) is skipped:
//    its batch comes out smaller, skipped() counts it, last_skip() says why.
//    When a whole dataset's worth of samples in a row fails, next() throws.
//  - A worker's unexpected exception is rethrown by next().
#pragma once
#include <torch/torch.h>

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "data/image_folder.hpp"
#include "data/image_transform.hpp"

namespace milabench {

struct ImageLoaderOptions {
  int64_t batch_size = 256;
  int workers = 8;           // decode threads, >= 1
  int prefetch_batches = 2;  // batches filled or ready ahead of the consumer, >= 1
  bool shuffle = true;
  bool pin_memory = false;  // page-locked host batches for non_blocking copies (needs CUDA)
  uint64_t seed = 0;
};

struct ImageBatch {
  torch::Tensor images;  // float [n, sample_shape...] on the host (pinned when asked)
  torch::Tensor labels;  // int64 [n]
  int64_t size() const { return images.size(0); }
};

// The batches of one epoch (DataLoader with drop_last=False): ceil(samples / batch_size).
int64_t batches_per_epoch(int64_t samples, int64_t batch_size);
// Samples in batch `index` (counted from the first epoch's first batch).
int64_t batch_length(int64_t samples, int64_t batch_size, int64_t index);

class ImageLoader {
 public:
  // Throws std::invalid_argument on an empty sample list or bad options.
  ImageLoader(std::vector<ImageSample> samples, std::shared_ptr<const ImageTransform> transform,
              ImageLoaderOptions options);
  ~ImageLoader();  // stops and joins the workers
  ImageLoader(const ImageLoader&) = delete;
  ImageLoader& operator=(const ImageLoader&) = delete;

  // Blocks until the next batch is complete; never returns an empty batch.
  // Its size is batch_length(samples, batch_size, i) for the i-th batch, less
  // the samples skipped in it.
  ImageBatch next();

  int64_t skipped() const;        // samples skipped so far (corrupt/unreadable)
  std::string last_skip() const;  // "<path>: <reason>" of the latest skip, "" if none

 private:
  struct Slot {
    int64_t batch = -1;  // batch held, -1 when free
    int64_t length = 0;  // samples in it (batch_length)
    torch::Tensor images, labels;
    std::vector<char> ok;
    int64_t done = 0;
  };
  void work();
  // Buffers for a new batch: a pooled pair nobody else references, or fresh
  // ones (kept in the pool while it is small). Call with mu_ held.
  std::pair<torch::Tensor, torch::Tensor> take_buffers();
  // The sample at position `pos` of epoch `epoch`'s order. Call with mu_ held.
  ImageSample sample_at(int64_t epoch, int64_t pos);

  const std::vector<ImageSample> samples_;
  const std::shared_ptr<const ImageTransform> transform_;
  const ImageLoaderOptions options_;
  std::vector<int64_t> shape_;  // [batch, sample_shape...]
  int64_t sample_numel_ = 1;

  mutable std::mutex mu_;
  std::condition_variable workers_cv_, consumer_cv_;
  std::vector<Slot> slots_;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> pool_;             // (images, labels) for recycling
  std::map<int64_t, std::shared_ptr<const std::vector<int64_t>>> perms_;  // epoch -> order
  int64_t next_batch_ = 0;     // batch of the next sample to hand to a worker
  int64_t next_in_batch_ = 0;  // its position in that batch
  int64_t consumed_ = 0;       // next batch the consumer takes
  int64_t skipped_ = 0;
  int64_t skipped_in_a_row_ = 0;
  std::string last_skip_;
  std::exception_ptr worker_error_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace milabench
