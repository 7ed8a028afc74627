#include "models/ssd_boxes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace milabench {

DefaultBoxes make_default_boxes(int fig_size, const std::vector<int>& feat_size, const std::vector<int>& steps,
                                const std::vector<int>& scales, const std::vector<std::vector<int>>& aspect_ratios) {
  const size_t n = feat_size.size();
  if (steps.size() != n || scales.size() != n + 1 || aspect_ratios.size() != n)
    throw std::invalid_argument("make_default_boxes: feat_size, steps, scales (+1) and aspect_ratios disagree");
  DefaultBoxes d;
  for (size_t k = 0; k < n; ++k) {
    const double fk = double(fig_size) / steps[k];
    const double sk1 = double(scales[k]) / fig_size, sk2 = double(scales[k + 1]) / fig_size;
    const double sk3 = std::sqrt(sk1 * sk2);
    std::vector<std::pair<double, double>> sizes = {{sk1, sk1}, {sk3, sk3}};
    for (int alpha : aspect_ratios[k]) {
      const double w = sk1 * std::sqrt(double(alpha)), h = sk1 / std::sqrt(double(alpha));
      sizes.push_back({w, h});
      sizes.push_back({h, w});
    }
    for (const auto& [w, h] : sizes)
      for (int i = 0; i < feat_size[k]; ++i)
        for (int j = 0; j < feat_size[k]; ++j) {
          Box b = {float((j + 0.5) / fk), float((i + 0.5) / fk), float(w), float(h)};
          for (float& v : b) v = std::clamp(v, 0.0f, 1.0f);
          d.xywh.push_back(b);
        }
  }
  d.ltrb.reserve(d.xywh.size());
  for (const Box& b : d.xywh) d.ltrb.push_back(xywh_to_ltrb(b));
  return d;
}

const DefaultBoxes& ssd300_default_boxes() {
  static const DefaultBoxes boxes =
      make_default_boxes(300, {38, 19, 10, 5, 3, 1}, {8, 16, 32, 64, 100, 300}, {21, 45, 99, 153, 207, 261, 315},
                         {{2}, {2, 3}, {2, 3}, {2, 3}, {2}, {2}});
  return boxes;
}

float iou_ltrb(const Box& a, const Box& b) {
  const float iw = std::max(0.0f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const float ih = std::max(0.0f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const float inter = iw * ih;
  const float uni = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return uni > 0 ? inter / uni : 0.0f;
}

Box ltrb_to_xywh(const Box& b) { return {0.5f * (b[0] + b[2]), 0.5f * (b[1] + b[3]), b[2] - b[0], b[3] - b[1]}; }

Box xywh_to_ltrb(const Box& b) {
  return {b[0] - 0.5f * b[2], b[1] - 0.5f * b[3], b[0] + 0.5f * b[2], b[1] + 0.5f * b[3]};
}

int64_t encode_targets(const DefaultBoxes& dboxes, const std::vector<Box>& gt, const std::vector<int>& labels,
                       float threshold, float* xywh_out, float* labels_out) {
  if (gt.size() != labels.size()) throw std::invalid_argument("encode_targets: boxes and labels differ in count");
  const size_t nd = dboxes.ltrb.size(), ng = gt.size();
  // Per default box its best ground truth, per ground truth its best default
  // box; ties go to the first index, as torch's max.
  std::vector<float> best_iou(nd, -1.0f), gt_best_iou(ng, -1.0f);
  std::vector<int> best_gt(nd, 0);
  std::vector<size_t> gt_best(ng, 0);
  for (size_t d = 0; d < nd; ++d)
    for (size_t g = 0; g < ng; ++g) {
      const float iou = iou_ltrb(gt[g], dboxes.ltrb[d]);
      if (iou > best_iou[d]) best_iou[d] = iou, best_gt[d] = int(g);
      if (iou > gt_best_iou[g]) gt_best_iou[g] = iou, gt_best[g] = d;
    }
  for (size_t g = 0; g < ng; ++g) {  // every ground truth keeps its best default box
    best_iou[gt_best[g]] = 2.0f;
    best_gt[gt_best[g]] = int(g);
  }
  int64_t matched = 0;
  for (size_t d = 0; d < nd; ++d) {
    const bool pos = ng > 0 && best_iou[d] > threshold;
    const Box b = pos ? ltrb_to_xywh(gt[size_t(best_gt[d])]) : dboxes.xywh[d];
    std::copy(b.begin(), b.end(), xywh_out + 4 * d);
    labels_out[d] = pos ? float(labels[size_t(best_gt[d])]) : 0.0f;
    matched += pos;
  }
  return matched;
}

Box ssd_random_crop(LabelledBoxes& boxes, std::mt19937_64& rng) {
  static const float kInf = std::numeric_limits<float>::infinity();
  static const std::array<std::pair<float, float>, 6> kModes = {
      {{0.1f, kInf}, {0.3f, kInf}, {0.5f, kInf}, {0.7f, kInf}, {0.9f, kInf}, {-kInf, kInf}}};
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  if (boxes.ltrb.empty()) return {0, 0, 1, 1};
  while (true) {
    const int mode = std::uniform_int_distribution<int>(0, 6)(rng);
    if (mode == 0) return {0, 0, 1, 1};  // no crop
    const auto [min_iou, max_iou] = kModes[size_t(mode - 1)];
    const float w = 0.3f + 0.7f * u(rng), h = 0.3f + 0.7f * u(rng);
    if (w / h < 0.5f || w / h > 2.0f) continue;
    const float left = u(rng) * (1 - w), top = u(rng) * (1 - h);
    const Box window = {left, top, left + w, top + h};
    bool ok = true, any_inside = false;
    std::vector<char> inside(boxes.ltrb.size());
    for (size_t i = 0; i < boxes.ltrb.size(); ++i) {
      const Box& b = boxes.ltrb[i];
      const float iou = iou_ltrb(b, window);
      ok = ok && iou > min_iou && iou < max_iou;
      const float xc = 0.5f * (b[0] + b[2]), yc = 0.5f * (b[1] + b[3]);
      inside[i] = xc > window[0] && xc < window[2] && yc > window[1] && yc < window[3];
      any_inside = any_inside || inside[i];
    }
    if (!ok || !any_inside) continue;
    LabelledBoxes kept;
    for (size_t i = 0; i < boxes.ltrb.size(); ++i) {
      if (!inside[i]) continue;
      const Box& b = boxes.ltrb[i];
      kept.ltrb.push_back({(std::max(b[0], window[0]) - left) / w, (std::max(b[1], window[1]) - top) / h,
                           (std::min(b[2], window[2]) - left) / w, (std::min(b[3], window[3]) - top) / h});
      kept.labels.push_back(boxes.labels[i]);
    }
    boxes = std::move(kept);
    return window;
  }
}

void flip_boxes(LabelledBoxes& boxes) {
  for (Box& b : boxes.ltrb) {
    const float l = b[0];
    b[0] = 1.0f - b[2];
    b[2] = 1.0f - l;
  }
}

}  // namespace milabench
