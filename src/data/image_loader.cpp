#include "data/image_loader.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace milabench {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64 finaliser: per-sample seeds from (seed, index)
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

ImageLoader::ImageLoader(std::vector<ImageSample> samples, std::shared_ptr<const ImageTransform> transform,
                         ImageLoaderOptions options)
    : samples_(std::move(samples)), transform_(std::move(transform)), options_(options) {
  if (samples_.empty()) throw std::invalid_argument("ImageLoader: no samples");
  if (!transform_) throw std::invalid_argument("ImageLoader: no transform");
  if (options_.batch_size < 1) throw std::invalid_argument("--batch-size must be >= 1");
  if (options_.workers < 1) throw std::invalid_argument("--workers must be >= 1");
  if (options_.prefetch_batches < 1) throw std::invalid_argument("ImageLoader: prefetch_batches must be >= 1");
  shape_ = {options_.batch_size};
  for (int64_t d : transform_->sample_shape()) {
    shape_.push_back(d);
    sample_numel_ *= d;
  }
  use_single_threaded_opencv();
  slots_.resize(size_t(options_.prefetch_batches));
  for (int i = 0; i < options_.workers; ++i) threads_.emplace_back([this] { work(); });
}

ImageLoader::~ImageLoader() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  workers_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

const ImageSample& ImageLoader::sample_at(int64_t k) {
  const int64_t n = int64_t(samples_.size());
  if (!options_.shuffle) return samples_[size_t(k % n)];
  const int64_t epoch = k / n;
  auto it = perms_.find(epoch);
  if (it == perms_.end()) {
    auto order = std::make_shared<std::vector<int64_t>>(size_t(n));
    std::iota(order->begin(), order->end(), 0);
    std::mt19937_64 rng(mix(options_.seed ^ mix(uint64_t(epoch) + 1)));
    std::shuffle(order->begin(), order->end(), rng);
    it = perms_.emplace(epoch, std::move(order)).first;
    while (perms_.size() > 4) perms_.erase(perms_.begin());  // rebuilt on demand if needed again
  }
  return samples_[size_t((*it->second)[size_t(k % n)])];
}

std::pair<torch::Tensor, torch::Tensor> ImageLoader::take_buffers() {
  auto unshared = [](const torch::Tensor& t) { return t.use_count() == 1 && t.storage().use_count() == 1; };
  for (auto& [images, labels] : pool_)
    if (unshared(images) && unshared(labels)) return {images, labels};
  auto opts = torch::TensorOptions().pinned_memory(options_.pin_memory);
  std::pair<torch::Tensor, torch::Tensor> fresh{torch::empty(shape_, opts.dtype(torch::kFloat32)),
                                                torch::empty({options_.batch_size}, opts.dtype(torch::kInt64))};
  // Slots in flight + the batch the consumer holds + the one it just dropped.
  if (pool_.size() < size_t(options_.prefetch_batches) + 2) pool_.push_back(fresh);
  return fresh;
}

void ImageLoader::work() {
  try {
    JpegCodec codec;
    std::vector<uint8_t> bytes;
    const int64_t B = options_.batch_size, P = options_.prefetch_batches;
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      const int64_t k = next_sample_++;
      const int64_t b = k / B, j = k % B;
      workers_cv_.wait(lock, [&] { return stop_ || b < consumed_ + P; });
      if (stop_) return;
      Slot& slot = slots_[size_t(b % P)];
      if (slot.batch != b) {  // first worker on this batch sets the slot up
        std::tie(slot.images, slot.labels) = take_buffers();
        slot.ok.assign(size_t(B), 0);
        slot.done = 0;
        slot.batch = b;
      }
      const ImageSample& sample = sample_at(k);
      const ImageSample mine = sample;  // read below without the lock
      const std::string& path = mine.path;
      const int64_t label = mine.label;
      float* out = slot.images.data_ptr<float>() + j * sample_numel_;
      lock.unlock();

      std::mt19937_64 rng(mix(options_.seed ^ mix(uint64_t(k))));
      std::string error;
      bool ok = read_file_bytes(path, &bytes, &error) &&
                transform_->apply_sample(codec, mine, bytes.data(), bytes.size(), rng, out, &error);

      lock.lock();
      slot.labels.data_ptr<int64_t>()[j] = label;
      slot.ok[size_t(j)] = ok;
      if (!ok) {
        ++skipped_;
        last_skip_ = path + ": " + error;
      }
      if (++slot.done == B) consumer_cv_.notify_all();
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!worker_error_) worker_error_ = std::current_exception();
    consumer_cv_.notify_all();
  }
}

ImageBatch ImageLoader::next() {
  const int64_t B = options_.batch_size, P = options_.prefetch_batches;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    const int64_t b = consumed_;
    Slot& slot = slots_[size_t(b % P)];
    consumer_cv_.wait(lock, [&] { return worker_error_ || (slot.batch == b && slot.done == B); });
    if (worker_error_) std::rethrow_exception(worker_error_);
    ImageBatch batch{std::move(slot.images), std::move(slot.labels)};
    std::vector<char> ok = std::move(slot.ok);
    slot = Slot{};
    ++consumed_;
    workers_cv_.notify_all();

    const int64_t good = std::count(ok.begin(), ok.end(), 1);
    if (good == B) {
      skipped_in_a_row_ = 0;
      return batch;
    }
    if (good == 0) {
      skipped_in_a_row_ += B;
      if (skipped_in_a_row_ >= int64_t(samples_.size()))
        throw std::runtime_error("ImageLoader: " + std::to_string(skipped_in_a_row_) +
                                 " images in a row could not be decoded (dataset of " +
                                 std::to_string(samples_.size()) + "), e.g. " + last_skip_);
      continue;
    }
    skipped_in_a_row_ = 0;
    lock.unlock();  // rare path: drop the skipped rows
    std::vector<int64_t> keep;
    for (int64_t j = 0; j < B; ++j)
      if (ok[size_t(j)]) keep.push_back(j);
    auto index = torch::tensor(keep, torch::kInt64);
    batch.images = batch.images.index_select(0, index);
    batch.labels = batch.labels.index_select(0, index);
    if (options_.pin_memory) {
      batch.images = batch.images.pin_memory();
      batch.labels = batch.labels.pin_memory();
    }
    return batch;
  }
}

int64_t ImageLoader::skipped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return skipped_;
}

std::string ImageLoader::last_skip() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_skip_;
}

}  // namespace milabench
