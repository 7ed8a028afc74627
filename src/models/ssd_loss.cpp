#include "models/ssd_loss.hpp"

namespace milabench {

SsdLossImpl::SsdLossImpl(const DefaultBoxes& d) : scale_xy(1.0 / d.scale_xy), scale_wh(1.0 / d.scale_wh) {
  auto flat = torch::empty({d.size(), 4}, torch::kFloat32);
  std::memcpy(flat.data_ptr<float>(), d.xywh.data(), sizeof(float) * 4 * size_t(d.size()));
  dboxes = register_buffer("dboxes", flat.t().unsqueeze(0).contiguous());
}

torch::Tensor SsdLossImpl::location_targets(const torch::Tensor& gloc) const {
  using torch::indexing::Slice;
  const auto dxy = dboxes.index({Slice(), Slice(0, 2)}), dwh = dboxes.index({Slice(), Slice(2, 4)});
  const auto gxy = scale_xy * (gloc.index({Slice(), Slice(0, 2)}) - dxy) / dwh;
  const auto gwh = scale_wh * (gloc.index({Slice(), Slice(2, 4)}) / dwh).log();
  return torch::cat({gxy, gwh}, 1).contiguous();
}

torch::Tensor SsdLossImpl::decode(const torch::Tensor& ploc) const {
  using torch::indexing::Slice;
  const auto dxy = dboxes.index({Slice(), Slice(0, 2)}), dwh = dboxes.index({Slice(), Slice(2, 4)});
  const auto xy = ploc.index({Slice(), Slice(0, 2)}) / scale_xy * dwh + dxy;
  const auto wh = (ploc.index({Slice(), Slice(2, 4)}) / scale_wh).exp() * dwh;
  return torch::cat({xy - 0.5 * wh, xy + 0.5 * wh}, 1).transpose(1, 2).contiguous();
}

torch::Tensor hard_negative_mask(const torch::Tensor& loss, const torch::Tensor& positive, int64_t ratio) {
  // Positives are zeroed, as the original: they rank among the smallest.
  auto negatives = loss.clone().masked_fill_(positive, 0);
  const auto order = std::get<1>(negatives.sort(1, /*descending=*/true));
  const auto rank = std::get<1>(order.sort(1));
  const auto wanted = torch::clamp(ratio * positive.sum(1), c10::nullopt, positive.size(1)).unsqueeze(-1);
  return rank < wanted;
}

torch::Tensor SsdLossImpl::forward(const torch::Tensor& ploc, const torch::Tensor& plabel, const torch::Tensor& gloc,
                                   const torch::Tensor& glabel) {
  namespace F = torch::nn::functional;
  const auto positive = glabel > 0;
  const auto pos_num = positive.sum(1);
  const auto sl1 =
      F::smooth_l1_loss(ploc, location_targets(gloc), F::SmoothL1LossFuncOptions().reduction(torch::kNone)).sum(1);
  const auto loc_loss = (positive.to(sl1.dtype()) * sl1).sum(1);
  const auto con = F::cross_entropy(plabel, glabel, F::CrossEntropyFuncOptions().reduction(torch::kNone));
  const auto neg = hard_negative_mask(con.detach(), positive);
  const auto con_loss = (con * (positive.to(con.dtype()) + neg.to(con.dtype()))).sum(1);
  const auto has_pos = (pos_num > 0).to(con.dtype());
  const auto per_image = (loc_loss + con_loss) * has_pos / pos_num.to(con.dtype()).clamp_min(1e-6);
  return per_image.mean(0);
}

}  // namespace milabench
