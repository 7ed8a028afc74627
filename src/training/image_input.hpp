// The image input of the vision workloads: flags (--dataset, --batch-size,
// --image-size, --reduced-decode; --workers is the harness's), an ImageLoader over the dataset's train split
// (with the workload's transform; RandomResizedCrop + flip by default),
// and batches moved to the session's device (pinned host memory and
// non_blocking copies on CUDA). Records the dataset's provenance and keeps the
// "images_skipped" metric current (corrupt or truncated JPEGs).
#pragma once
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "data/image_loader.hpp"
#include "data/image_transform.hpp"

namespace milabench {

class Session;

struct ImageInputOptions {
  std::string dataset = "milarun.datasets:fake_imagenet";
  int64_t batch_size = 256;
  int workers = 8;       // loader threads when the harness's --workers is not given
  int image_size = 224;  // RandomResizedCrop output side (ours: small values make CPU tests fast)
  // Opt-in shortcut (not the original's work): DCT-scaled region decode.
  // Recorded as metrics.decode = "reduced" and in metrics.shortcuts.
  bool reduced_decode = false;
  Decode decode() const { return reduced_decode ? Decode::reduced : Decode::full; }
};

// Registers the flags on `app`, with `options`' values as defaults
// (--image-size only when `image_size_flag`: reso's original has none;
// --reduced-decode only when `reduced_decode_flag`: reso always decodes whole).
void add_image_input_options(CLI::App& app, ImageInputOptions& options, bool image_size_flag = true,
                             bool reduced_decode_flag = true);
// Registers --reduced-decode alone (for inputs with their own other flags).
void add_reduced_decode_flag(CLI::App& app, bool& reduced_decode);

// Checks --batch-size and --workers (std::invalid_argument naming the flag).
// Torch's intra-op threads are the harness's (--workers or 1, init_torch).
void check_loader_flags(int64_t batch_size, int workers);

// An ImageLoader that feeds a session: started with pinned host batches on
// CUDA and a seed from torch's generator; records `provenance` as the
// session's dataset, the decode used (metrics.decode "full" or "reduced";
// "reduced_decode" in metrics.shortcuts when reduced) and keeps the
// "images_skipped" metric (and the provenance's "last_skipped") current as
// batches are taken. Batches follow the DataLoader's epochs: the last one of
// an epoch may be short (image_loader.hpp).
class SessionImageFeed {
 public:
  SessionImageFeed(Session& session, nlohmann::json provenance, std::vector<ImageSample> samples,
                   std::shared_ptr<const ImageTransform> transform, int64_t batch_size, int workers, bool shuffle,
                   Decode decode);
  ImageBatch next();  // on the host
  int64_t skipped() const { return loader_->skipped(); }

 private:
  Session& session_;
  nlohmann::json provenance_;
  std::unique_ptr<ImageLoader> loader_;
  int64_t skipped_seen_ = 0;
};

class ImageInput {
 public:
  // Opens the train split (throws with the command that makes it when
  // missing), starts the loader with --workers threads (the session's, else
  // options.workers).
  ImageInput(Session& session, const ImageInputOptions& options);
  // The same with the workload's own transform; `shuffle` as its original's
  // DataLoader (fast_style's does not shuffle).
  ImageInput(Session& session, const ImageInputOptions& options, std::shared_ptr<const ImageTransform> transform,
             bool shuffle);
  // (images [B, sample shape...] float, labels [B] int64) on the session's device.
  std::pair<torch::Tensor, torch::Tensor> next();
  int64_t classes() const { return classes_; }
  int64_t skipped() const { return feed_->skipped(); }

 private:
  Session& session_;
  std::unique_ptr<SessionImageFeed> feed_;
  int64_t classes_ = 0;
};

}  // namespace milabench
