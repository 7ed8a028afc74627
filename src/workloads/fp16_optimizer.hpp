// Half-precision training helpers shared by workloads with --half.
//
// CUDA: the original's recipe (apex FP16_Optimizer with dynamic_loss_scale
// and network_to_half): the model runs in float16 except BatchNorm (float32),
// the optimizer steps float32 master copies of the weights, the loss is
// multiplied by a dynamic scale before backward, and a step whose gradients
// overflow (inf/nan) is skipped and halves the scale; after `window` good
// steps in a row the scale doubles.
// CPU: bfloat16 autocast (AutocastCpuScope); no loss scaling is needed since
// bfloat16 has float32's exponent range.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace milabench {

// The scale arithmetic alone (no tensors), so it can be tested exactly.
class DynamicLossScale {
 public:
  // apex's defaults: 2^32, factor 2, window 1000.
  explicit DynamicLossScale(double init = 4294967296.0, double factor = 2.0, int64_t window = 1000)
      : scale_(init), factor_(factor), window_(window) {}
  double scale() const { return scale_; }
  // Records one step. Returns true when the step may be applied (no
  // overflow). On overflow the scale is divided by `factor` (never below 1).
  bool update(bool overflow);
  int64_t skipped_steps() const { return skipped_; }

 private:
  double scale_, factor_;
  int64_t window_, good_in_a_row_ = 0, skipped_ = 0;
};

// Converts `model` to float16 except its BatchNorm layers, as apex's
// network_to_half did.
void model_to_half_keep_batchnorm(torch::nn::Module& model);

// Float32 master copies of a half model's parameters, and the step around them.
class Fp16MasterWeights {
 public:
  explicit Fp16MasterWeights(std::vector<torch::Tensor> model_params);
  // What the optimizer must own.
  std::vector<torch::Tensor>& master_params() { return masters_; }
  // Scales `loss` by the current scale and runs backward.
  void backward(const torch::Tensor& loss);
  // Copies model gradients into the masters divided by the scale and checks
  // them; on overflow returns false (caller skips optimizer.step()).
  // Updates the scale either way. One device sync.
  bool unscale_and_check();
  // After optimizer.step(): copies masters back into the model.
  void copy_to_model();
  void zero_model_grads();
  const DynamicLossScale& loss_scale() const { return scale_; }

 private:
  std::vector<torch::Tensor> model_;
  std::vector<torch::Tensor> masters_;
  DynamicLossScale scale_;
};

// RAII: CPU autocast to bfloat16 for the scope's ops (forward and loss);
// clears autocast's weight-cast cache on exit as torch.autocast does.
class AutocastCpuScope {
 public:
  AutocastCpuScope();
  ~AutocastCpuScope();
  AutocastCpuScope(const AutocastCpuScope&) = delete;
  AutocastCpuScope& operator=(const AutocastCpuScope&) = delete;

 private:
  bool previous_;
};

}  // namespace milabench
