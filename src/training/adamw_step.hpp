// The AdamW update of the 2026 workloads. torch::optim::AdamW holds the
// parameter groups, their options and the per-parameter state (step,
// exp_avg, exp_avg_sq), so torch::save / torch::load of it checkpoint the
// run whichever way it is updated; AdamWStep does the update over that
// state:
//   - fused: one at::_fused_adamw_ kernel per group (compat::fused_adamw),
//     as llm.c's configure_optimizers asks for on CUDA (AdamW(fused=True)).
//     Chosen on CUDA where libtorch has the kernel (2.0 and later).
//   - loop: torch::optim::AdamW::step itself, per parameter (the CPU runs
//     and the parity fixtures are what they were), as llm.c on the CPU.
// Both do the same update: weight decay decoupled (p *= 1 - lr wd), bias
// corrections from each parameter's own step count, no amsgrad; the fused
// kernel's float rounding may differ in the last bits. Parameters without
// a gradient are skipped and keep their step count, as torch's.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <map>
#include <string>

namespace milabench {

enum class AdamWKernel { loop, fused };

// The kernel for parameters on `device`: fused where libtorch has it on CUDA.
AdamWKernel default_adamw_kernel(const torch::Device& device);

// Recorded in the result (metric "optimizer").
std::string adamw_kernel_name(AdamWKernel k);

// The multi-tensor update the fused kernel does: compat::fused_adamw's
// signature (params, grads, exp_avgs, exp_avg_sqs, float32 step counts that
// already count this step, lr, beta1, beta2, weight decay, eps). Tests
// substitute a reference of the same math where libtorch has no kernel.
using FusedAdamWKernel = std::function<void(at::TensorList, at::TensorList, at::TensorList, at::TensorList,
                                            at::TensorList, double, double, double, double, double)>;

class AdamWStep {
 public:
  // Throws std::invalid_argument for a fused kernel libtorch lacks on
  // `device` (unless `fused_kernel` stands in for it), or for an optimizer
  // with amsgrad.
  AdamWStep(torch::optim::AdamW& optimizer, AdamWKernel kernel, const torch::Device& device,
            FusedAdamWKernel fused_kernel = {});
  // One update of every parameter with a gradient, at each group's lr.
  void step();
  AdamWKernel kernel() const { return kernel_; }

 private:
  void fused_group(torch::optim::OptimizerParamGroup& group);
  torch::optim::AdamWParamState& state_of(const torch::Tensor& p);
  // The float32 step count of `p` on the device (the fused kernel's
  // state_steps), refilled when it disagrees with the optimizer's `step`
  // (after torch::load); counts this step once the group adds 1 to it.
  torch::Tensor count_step(const torch::Tensor& p, int64_t step);

  torch::optim::AdamW& opt_;
  AdamWKernel kernel_;
  FusedAdamWKernel fused_kernel_;
  torch::Device device_;
  std::map<const void*, std::pair<int64_t, torch::Tensor>> steps_;  // parameter -> (count, tensor)
};

}  // namespace milabench
