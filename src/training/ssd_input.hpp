// The ssd workload's input: COCO train images through the original's
// SSDTransformer - SSD random crop, horizontal flip (p 0.5), resize to
// 300x300, colour jitter (brightness 0.125, contrast 0.5, saturation 0.5,
// hue 0.05, in random order), ImageNet normalisation - and the ground truth
// matched to the 8732 default boxes (encode_targets, IoU > 0.5), all on the
// ImageLoader's threads. Batches reach the training thread ready to use.
#pragma once
#include <torch/torch.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/image_loader.hpp"
#include "data/image_transform.hpp"
#include "models/ssd_boxes.hpp"
#include "training/image_input.hpp"

namespace milabench {

class Session;

// One sample packs the image and its targets in one float row (the loader
// fills one float tensor per batch): 3*300*300 image values, then
// 8732*4 matched boxes (xywh, box-major), then 8732 labels.
class SsdTransform : public ImageTransform {
 public:
  static constexpr int kSide = 300;
  // `annotations[i]` are the boxes (ltrb relative to the image) of the sample
  // whose label is i. `jitter` false skips the colour jitter (tests only).
  // `decode`: full-resolution decode (the original's) or the opt-in reduced one.
  SsdTransform(std::shared_ptr<const std::vector<LabelledBoxes>> annotations, const DefaultBoxes& dboxes,
               bool jitter = true, Decode decode = Decode::full);

  std::vector<int64_t> sample_shape() const override;
  // Needs the sample's boxes: always fails with an error saying so.
  bool apply(JpegCodec& codec, const uint8_t* jpeg, size_t size, std::mt19937_64& rng, float* out,
             std::string* error) const override;
  bool apply_sample(JpegCodec& codec, const ImageSample& sample, const uint8_t* jpeg, size_t size, std::mt19937_64& rng,
                    float* out, std::string* error) const override;

 private:
  std::shared_ptr<const std::vector<LabelledBoxes>> annotations_;
  const DefaultBoxes& dboxes_;
  bool jitter_;
  Decode decode_;
};

// torchvision's ColorJitter(brightness, contrast, saturation, hue) on HWC RGB
// bytes, in place: each factor drawn uniformly, the four in random order,
// each result rounded to bytes as PIL does.
void color_jitter(uint8_t* rgb, int width, int height, float brightness, float contrast, float saturation, float hue,
                  std::mt19937_64& rng);

struct SsdBatch {
  torch::Tensor images;  // [B, 3, 300, 300] float
  torch::Tensor gloc;    // [B, 4, 8732] matched boxes, xywh
  torch::Tensor glabel;  // [B, 8732] int64, 0 = background
};

// Splits a loader batch of packed rows (see SsdTransform) into an SsdBatch.
SsdBatch unpack_ssd_batch(const torch::Tensor& rows, int64_t default_boxes);

class SsdInput {
 public:
  // Reads DATAROOT's COCO train annotations (throws with the command that
  // makes the data when missing), keeps the images with at least one box (as
  // the original), records the dataset's provenance, starts the loader with
  // `loader_workers` threads (the original's DataLoader: 4, whatever --workers).
  SsdInput(Session& session, const std::string& dataset, int64_t batch_size, int loader_workers, Decode decode);
  SsdBatch next();  // on the session's device
  int64_t labels() const { return labels_; }

 private:
  Session& session_;
  std::unique_ptr<SessionImageFeed> feed_;
  int64_t labels_ = 0;
};

}  // namespace milabench
