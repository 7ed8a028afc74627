// SSD300's box utilities, as the original (MLPerf v0.5 SSD reference, on which
// milabench's ssd is built): default boxes, IoU, matching of ground-truth
// boxes to default boxes, and the random-crop / flip augmentation. No torch
// here: the loader threads run these per image.
//
// Boxes are relative to the image (0..1): "ltrb" = left, top, right, bottom;
// "xywh" = centre x, centre y, width, height.
#pragma once
#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace milabench {

using Box = std::array<float, 4>;

struct DefaultBoxes {
  std::vector<Box> xywh;  // clamped to [0, 1] component-wise, as the original
  std::vector<Box> ltrb;  // from the clamped xywh
  float scale_xy = 0.1f;  // offset encoding: (g_xy - d_xy) / d_wh / scale_xy
  float scale_wh = 0.2f;  //                   log(g_wh / d_wh) / scale_wh
  int64_t size() const { return int64_t(xywh.size()); }
};

// Default boxes of an SSD of input side `fig_size`: for feature map k (side
// feat_size[k], cell step steps[k]) the sizes s_k = scales[k] / fig_size,
// sqrt(s_k s_{k+1}), and s_k*sqrt(a) x s_k/sqrt(a) plus its transpose for each
// aspect ratio a; each size over every cell (row-major), sizes outermost -
// the order of the network's bbox_view. Throws std::invalid_argument when
// the vectors' lengths disagree.
DefaultBoxes make_default_boxes(int fig_size, const std::vector<int>& feat_size, const std::vector<int>& steps,
                                const std::vector<int>& scales, const std::vector<std::vector<int>>& aspect_ratios);

// SSD300 on COCO: maps 38, 19, 10, 5, 3, 1; steps 8, 16, 32, 64, 100, 300;
// scales 21, 45, 99, 153, 207, 261, 315; ratios {2}, {2,3}, {2,3}, {2,3}, {2}, {2}
// -> 4, 6, 6, 6, 4, 4 boxes per cell, 8732 boxes.
const DefaultBoxes& ssd300_default_boxes();

float iou_ltrb(const Box& a, const Box& b);
Box ltrb_to_xywh(const Box& b);
Box xywh_to_ltrb(const Box& b);

// The original's Encoder.encode: each default box takes the ground-truth box
// of highest IoU; each ground-truth box also claims its best default box
// (IoU set to 2, so it always counts); default boxes whose IoU > threshold get
// that box (xywh) and label, the others keep their own xywh and label 0
// (background). Writes dboxes.size() * 4 floats at `xywh_out` and
// dboxes.size() labels at `labels_out`. Returns the number of matched boxes.
int64_t encode_targets(const DefaultBoxes& dboxes, const std::vector<Box>& gt_ltrb, const std::vector<int>& labels,
                       float threshold, float* xywh_out, float* labels_out);

// Ground-truth boxes of one image with their labels.
struct LabelledBoxes {
  std::vector<Box> ltrb;
  std::vector<int> labels;
};

// The original's SSDCropping: picks uniformly one of {no crop, min IoU 0.1,
// 0.3, 0.5, 0.7, 0.9, any IoU}; a candidate window of 0.3..1 of each side
// (aspect 0.5..2) is kept when every box's IoU with it passes the bound and
// some box centre lies inside; the boxes whose centre is inside are clipped
// and expressed in the window. One candidate per pick (as the MLPerf code),
// picking again until one is kept. Returns the window (ltrb, relative to the
// source image) and rewrites `boxes`. With no boxes it returns the whole image.
Box ssd_random_crop(LabelledBoxes& boxes, std::mt19937_64& rng);

// Mirrors boxes left-right (l, r) -> (1 - r, 1 - l).
void flip_boxes(LabelledBoxes& boxes);

}  // namespace milabench
