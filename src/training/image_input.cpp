#include "training/image_input.hpp"

#include "data/image_datasets.hpp"
#include "data/manifest.hpp"
#include "training/session.hpp"

namespace milabench {

void add_image_input_options(CLI::App& app, ImageInputOptions& o, bool image_size_flag, bool reduced_decode_flag) {
  app.add_option("--dataset", o.dataset, "image dataset (NAME or milarun.datasets:NAME)")->capture_default_str();
  app.add_option("--batch-size", o.batch_size, "images per batch")->capture_default_str();
  if (image_size_flag)
    app.add_option("--image-size", o.image_size, "side of the images fed to the model")->capture_default_str();
  if (reduced_decode_flag) add_reduced_decode_flag(app, o.reduced_decode);
}

void add_reduced_decode_flag(CLI::App& app, bool& reduced_decode) {
  app.add_flag("--reduced-decode", reduced_decode,
               "shortcut (ours, recorded in the result): decode only the crop region at a reduced DCT scale "
               "instead of the original's full-resolution decode");
}

namespace {

std::shared_ptr<const ImageTransform> random_resized_crop(int size, Decode decode) {
  RandomResizedCropFlip::Options t;
  t.size = size;
  t.decode = decode;
  return std::make_shared<RandomResizedCropFlip>(t);
}

}  // namespace

ImageInput::ImageInput(Session& session, const ImageInputOptions& o)
    : ImageInput(session, o, o.image_size >= 8 ? random_resized_crop(o.image_size, o.decode()) : nullptr, true) {}

ImageInput::ImageInput(Session& session, const ImageInputOptions& o, std::shared_ptr<const ImageTransform> transform,
                       bool shuffle)
    : session_(session) {
  // --workers is the harness's (Session::workers); 0 (not given) keeps this input's default.
  const int workers = session.workers() > 0 ? session.workers() : o.workers;
  check_loader_flags(o.batch_size, workers);
  if (o.image_size < 8) throw std::invalid_argument("--image-size must be >= 8, got " + std::to_string(o.image_size));
  ImageFolder folder = open_image_dataset(o.dataset, session.dataroot(), "train");
  classes_ = int64_t(folder.classes.size());
  nlohmann::json provenance = dataset_provenance(session.dataroot(), image_dataset_name(o.dataset));
  provenance["images"] = folder.samples.size();
  provenance["classes"] = classes_;
  feed_ = std::make_unique<SessionImageFeed>(session, std::move(provenance), std::move(folder.samples),
                                             std::move(transform), o.batch_size, workers, shuffle, o.decode());
}

std::pair<torch::Tensor, torch::Tensor> ImageInput::next() {
  ImageBatch b = feed_->next();
  const bool non_blocking = session_.device().is_cuda();
  return {b.images.to(session_.device(), non_blocking), b.labels.to(session_.device(), non_blocking)};
}

void check_loader_flags(int64_t batch_size, int workers) {
  if (batch_size < 1) throw std::invalid_argument("--batch-size must be >= 1, got " + std::to_string(batch_size));
  if (workers < 1) throw std::invalid_argument("--workers must be >= 1, got " + std::to_string(workers));
}

SessionImageFeed::SessionImageFeed(Session& session, nlohmann::json provenance, std::vector<ImageSample> samples,
                                   std::shared_ptr<const ImageTransform> transform, int64_t batch_size, int workers,
                                   bool shuffle, Decode decode)
    : session_(session), provenance_(std::move(provenance)) {
  session.set_dataset(provenance_);
  session.set_metric("images_skipped", 0);
  session.set_metric("decode", decode_name(decode));
  if (decode == Decode::reduced) session.set_metric("shortcuts", nlohmann::json::array({"reduced_decode"}));
  ImageLoaderOptions lo;
  lo.batch_size = batch_size;
  lo.workers = workers;
  lo.pin_memory = session.device().is_cuda();
  lo.shuffle = shuffle;
  lo.seed = uint64_t(torch::randint(0, int64_t(1) << 62, {1}, torch::kInt64).item<int64_t>());
  loader_ = std::make_unique<ImageLoader>(std::move(samples), std::move(transform), lo);
}

ImageBatch SessionImageFeed::next() {
  ImageBatch b = loader_->next();
  const int64_t skipped = loader_->skipped();
  if (skipped != skipped_seen_) {
    skipped_seen_ = skipped;
    session_.set_metric("images_skipped", skipped);
    provenance_["last_skipped"] = loader_->last_skip();
    session_.set_dataset(provenance_);
  }
  return b;
}

}  // namespace milabench
