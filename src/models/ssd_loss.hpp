// SSD's training loss, as the original's Loss (MLPerf v0.5 SSD reference):
// per image, smooth-L1 over the 4 offsets of the positive default boxes
// (label > 0) plus cross-entropy over the positives and the 3 x positives
// hardest negatives (largest cross-entropy among label 0), divided by the
// image's positive count; images without positives count 0; mean over the
// batch. Offsets: ((g_xy - d_xy) / d_wh) / scale_xy and log(g_wh / d_wh) / scale_wh.
#pragma once
#include <torch/torch.h>

#include "models/ssd_boxes.hpp"

namespace milabench {

struct SsdLossImpl : torch::nn::Module {
  explicit SsdLossImpl(const DefaultBoxes& dboxes);
  // ploc [N, 4, D] offsets, plabel [N, C, D] scores, gloc [N, 4, D] matched
  // boxes (xywh, as encode_targets writes them), glabel [N, D] int64 -> scalar.
  torch::Tensor forward(const torch::Tensor& ploc, const torch::Tensor& plabel, const torch::Tensor& gloc,
                        const torch::Tensor& glabel);
  // Matched boxes [N, 4, D] (xywh) -> the offsets the network should predict.
  torch::Tensor location_targets(const torch::Tensor& gloc) const;
  // Predicted offsets [N, 4, D] -> boxes [N, D, 4] (ltrb): the inverse.
  torch::Tensor decode(const torch::Tensor& ploc) const;

  torch::Tensor dboxes;       // [1, 4, D] xywh, a buffer (moves with .to(device))
  double scale_xy, scale_wh;  // 1 / 0.1 and 1 / 0.2
};
TORCH_MODULE(SsdLoss);

// Hard negative mining: of the negatives (!positive) of each row, the
// min(ratio * positives, D) with the largest `loss` (ties by sort order).
// loss [N, D] float, positive [N, D] bool -> [N, D] bool.
torch::Tensor hard_negative_mask(const torch::Tensor& loss, const torch::Tensor& positive, int64_t ratio = 3);

}  // namespace milabench
