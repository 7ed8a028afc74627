#include "data/image_loader.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "sys/splitmix.hpp"

namespace milabench {

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

int64_t batches_per_epoch(int64_t samples, int64_t batch_size) { return (samples + batch_size - 1) / batch_size; }

int64_t batch_length(int64_t samples, int64_t batch_size, int64_t index) {
  const int64_t first = (index % batches_per_epoch(samples, batch_size)) * batch_size;
  return std::min(batch_size, samples - first);
}

ImageSample ImageLoader::sample_at(int64_t epoch, int64_t pos) {
  if (!options_.shuffle) return samples_[size_t(pos)];
  auto it = perms_.find(epoch);
  if (it == perms_.end()) {
    auto order = std::make_shared<std::vector<int64_t>>(samples_.size());
    std::iota(order->begin(), order->end(), 0);
    std::mt19937_64 rng(splitmix64(options_.seed ^ splitmix64(uint64_t(epoch) + 1)));
    std::shuffle(order->begin(), order->end(), rng);
    it = perms_.emplace(epoch, std::move(order)).first;
  }
  ImageSample sample = samples_[size_t((*it->second)[size_t(pos)])];
  // Workers take epochs slightly out of order: keep a few, rebuild on demand.
  while (perms_.size() > 4) perms_.erase(perms_.begin());
  return sample;
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
    const int64_t n = int64_t(samples_.size()), B = options_.batch_size, P = options_.prefetch_batches;
    const int64_t per_epoch = batches_per_epoch(n, B);
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      const int64_t b = next_batch_, j = next_in_batch_, length = batch_length(n, B, b);
      if (++next_in_batch_ == length) ++next_batch_, next_in_batch_ = 0;
      workers_cv_.wait(lock, [&] { return stop_ || b < consumed_ + P; });
      if (stop_) return;
      Slot& slot = slots_[size_t(b % P)];
      if (slot.batch != b) {  // first worker on this batch sets the slot up
        std::tie(slot.images, slot.labels) = take_buffers();
        slot.ok.assign(size_t(length), 0);
        slot.done = 0;
        slot.length = length;
        slot.batch = b;
      }
      const int64_t epoch = b / per_epoch, pos = (b % per_epoch) * B + j;
      const ImageSample mine = sample_at(epoch, pos);  // a copy: read below without the lock
      float* out = slot.images.data_ptr<float>() + j * sample_numel_;
      lock.unlock();

      std::mt19937_64 rng(splitmix64(options_.seed ^ splitmix64(uint64_t(epoch * n + pos))));
      std::string error;
      bool ok = read_file_bytes(mine.path, &bytes, &error) &&
                transform_->apply_sample(codec, mine, bytes.data(), bytes.size(), rng, out, &error);

      lock.lock();
      slot.labels.data_ptr<int64_t>()[j] = mine.label;
      slot.ok[size_t(j)] = ok;
      if (!ok) {
        ++skipped_;
        last_skip_ = mine.path + ": " + error;
      }
      if (++slot.done == slot.length) consumer_cv_.notify_all();
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!worker_error_) worker_error_ = std::current_exception();
    consumer_cv_.notify_all();
  }
}

ImageBatch ImageLoader::next() {
  const int64_t P = options_.prefetch_batches;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    const int64_t b = consumed_;
    Slot& slot = slots_[size_t(b % P)];
    consumer_cv_.wait(lock, [&] { return worker_error_ || (slot.batch == b && slot.done == slot.length); });
    if (worker_error_) std::rethrow_exception(worker_error_);
    const int64_t length = slot.length;
    ImageBatch batch{std::move(slot.images), std::move(slot.labels)};
    std::vector<char> ok = std::move(slot.ok);
    slot = Slot{};
    ++consumed_;
    workers_cv_.notify_all();
    if (length < options_.batch_size) {  // the epoch's short last batch: a view of the buffers
      batch.images = batch.images.narrow(0, 0, length);
      batch.labels = batch.labels.narrow(0, 0, length);
    }

    const int64_t good = std::count(ok.begin(), ok.end(), 1);
    if (good == length) {
      skipped_in_a_row_ = 0;
      return batch;
    }
    if (good == 0) {
      skipped_in_a_row_ += length;
      if (skipped_in_a_row_ >= int64_t(samples_.size()))
        throw std::runtime_error("ImageLoader: " + std::to_string(skipped_in_a_row_) +
                                 " images in a row could not be decoded (dataset of " +
                                 std::to_string(samples_.size()) + "), e.g. " + last_skip_);
      continue;
    }
    skipped_in_a_row_ = 0;
    lock.unlock();  // rare path: drop the skipped rows
    std::vector<int64_t> keep;
    for (int64_t j = 0; j < length; ++j)
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
