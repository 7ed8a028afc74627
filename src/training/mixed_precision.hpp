// Mixed precision for every workload that trains below float32 (wlmfp16,
// convnet_fp16, translator --math fp16, scaling --fp16): one autocast scope,
// one loss scaler with the original's policies, float32 master weights for
// pure float16 models, and gradient clipping without a host read.
//
// What the original did, per workload (docs/fidelity.md, "Mixed precision"):
// - wlmfp16 (wlm.main_fp16): model.half(), apex FP16_Optimizer with a static
//   loss scale of 128 (no overflow check), float32 master weights, master
//   gradients clipped.                      -> Fp16MasterWeights + static(128)
// - convnet_fp16 (conv_simple --half): the optimizer was built over the
//   float32 parameters, then apex network_to_half halved them in place
//   (BatchNorm stays float32), so FP16_Optimizer(dynamic_loss_scale=True)
//   kept no master copies: SGD stepped the float16 weights themselves.
//                                           -> LossScaler + apex_dynamic(), no masters
// - translator --math fp16: GNMT's Fp16Optimizer scaling policy.
//                                           -> LossScaler + gnmt_dynamic()
// On a CPU, float16 arithmetic is slow and unsupported by many kernels, so
// the workloads use bfloat16 autocast there (float32's exponent range: no
// loss scaling needed) and record that precision.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace milabench {

// RAII: autocast on `device` (kCPU or kCUDA) to `dtype` for the scope's ops,
// as Python's `with torch.autocast(device_type, dtype)`: the previous state
// and type are restored on exit, and the weight-cast cache is cleared when
// the outermost scope closes. enabled=false: does nothing.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, at::ScalarType dtype, bool enabled = true);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  bool enabled_, previous_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kFloat;
};

// How the loss scale moves. Static: fixed, gradients never checked (apex's
// LossScaler). Dynamic: gradients checked each step; an overflow (inf/NaN)
// skips the step and multiplies the scale by `backoff` (not below min_scale);
// after `growth_interval` clean steps in a row it is multiplied by `growth`
// (not above max_scale). read_each_gradient: the overflow check reads one
// value per gradient, in order, until the first non-finite one (apex's
// Python fallback); otherwise one read per step.
struct LossScalePolicy {
  double init = 1.0;
  bool dynamic = false;
  double backoff = 0.5, growth = 2.0;
  int64_t growth_interval = 1000;
  double min_scale = 1.0, max_scale = std::numeric_limits<double>::infinity();
  bool read_each_gradient = false;

  static LossScalePolicy fixed(double scale);
  // apex FP16_Optimizer(dynamic_loss_scale=True) as the original's apex
  // (breuleux/apex 7f313e9, built without amp_C) ran it: amp's
  // LossScaler("dynamic"): 2^16, /2 on overflow with no floor, x2 after 2000
  // clean steps, never above 2^24; one read per gradient until an overflow.
  static LossScalePolicy apex_dynamic();
  // GNMT's Fp16Optimizer (seq2seq/train/fp_optimizers.py): 8192, /2 on
  // overflow, x2 after 2048 clean steps, never above 8192.
  static LossScalePolicy gnmt_dynamic();
};

// The scale arithmetic alone (no tensors), so it is tested exactly.
class LossScale {
 public:
  explicit LossScale(const LossScalePolicy& policy);
  double scale() const { return scale_; }
  bool dynamic() const { return policy_.dynamic; }
  const LossScalePolicy& policy() const { return policy_; }
  // Records one step; returns true when its update may be applied. A static
  // scale ignores `overflow` (never checked) and always returns true.
  bool update(bool overflow);
  int64_t skipped_steps() const { return skipped_; }

 private:
  LossScalePolicy policy_;
  double scale_;
  int64_t clean_in_a_row_ = 0, skipped_ = 0;
};

// Scales losses and unscales gradients under a LossScale.
class LossScaler {
 public:
  explicit LossScaler(const LossScalePolicy& policy) : scale_(policy) {}
  // loss (any float type) in float32, times the scale: what backward() takes.
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Divides each defined gradient of `params` by the scale, in place. A
  // dynamic policy checks them for inf/NaN (apex's test: a non-finite
  // float32 sum) with one host read, or one per gradient in order, stopping
  // at the first non-finite one, under read_each_gradient; then updates the
  // scale. Returns false when the step must be skipped (the gradients are
  // then unusable). A static policy reads nothing back.
  bool unscale(const std::vector<torch::Tensor>& params);
  const LossScale& state() const { return scale_; }

 private:
  LossScale scale_;
};

// Converts `model` to float16 in place except its affine BatchNorm layers
// (apex's network_to_half, as the original's ModelAdapter did). The
// parameter tensors keep their identity: an optimizer built over them before
// steps the converted (float16) tensors.
void model_to_half_keep_batchnorm(torch::nn::Module& model);

// One step of apex FP16_Optimizer over an optimizer whose parameters are the
// model's own (float16 or float32; no master copies), as the original's
// convnet_fp16: opt.zero_grad(), backward of loss.float() x scale, unscale
// and check `params` (those of `opt`), opt.step() unless an overflow.
// Returns whether the step was applied.
bool apex_fp16_step(torch::optim::Optimizer& opt, LossScaler& scaler, const std::vector<torch::Tensor>& params,
                    const torch::Tensor& loss);

// apex FP16_Optimizer around a float16 model: the optimizer steps float32
// master copies of the parameters; gradients come from a scaled loss.
// A step: backward(loss); if (unscale()) { clip; opt.step(); copy_to_model(); }
class Fp16MasterWeights {
 public:
  Fp16MasterWeights(std::vector<torch::Tensor> model_params, const LossScalePolicy& policy);
  // What the optimizer must own.
  std::vector<torch::Tensor>& master_params() { return masters_; }
  // Clears the model's gradients, then runs backward on the scaled loss.
  void backward(const torch::Tensor& loss);
  // Model gradients -> float32 master gradients / scale; false on overflow
  // under a dynamic policy (skip the optimizer step).
  bool unscale();
  // After optimizer.step(): masters -> model.
  void copy_to_model();
  const LossScale& loss_scale() const { return scaler_.state(); }

 private:
  std::vector<torch::Tensor> model_;
  std::vector<torch::Tensor> masters_;
  LossScaler scaler_;
};

// torch.nn.utils.clip_grad_norm_(params, max_norm) (2-norm) without reading
// anything back: the clip coefficient min(1, max_norm / (norm + 1e-6)) stays
// on the device and every gradient is multiplied by it. Returns the total
// norm (a float32 scalar on the parameters' device; 0 without gradients).
// The original's torch 1.5 clip_grad_norm_ read the coefficient back once
// (`if clip_coef < 1`): a workload reproducing that reads the returned norm.
torch::Tensor clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm);

}  // namespace milabench
