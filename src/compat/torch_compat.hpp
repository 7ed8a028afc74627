// The one place that knows which libtorch this build compiles against:
// Debian 12's 1.13 (CI, CPU) or PyTorch 2.x (with CUDA and NCCL on GPU
// machines). Every API that differs between them is wrapped here; no other
// file tests TORCH_VERSION. Each wrapper calls the non-deprecated API of the
// version it is compiled with.
//
// - Autocast: 2.4 replaced the per-backend calls (set_enabled,
//   set_cpu_enabled, set_autocast_gpu_dtype ...) by one device-type API
//   (set_autocast_enabled(at::kCUDA, ...)) and deprecated the old ones.
// - c10d: from 2.0 ProcessGroupGloo and ProcessGroupNCCL are c10d::Backend
//   subclasses (ProcessGroup became a dispatcher over backends); in 1.13 they
//   derive from c10d::ProcessGroup. CollectiveBackend names the common base
//   whose allreduce/broadcast data_parallel.cpp calls.
// - Attention: 2.0 added at::scaled_dot_product_attention (flash / memory-
//   efficient kernels on CUDA); 1.13 has none (callers run the plain math).
// - c10d teardown: shutdown_process_group (2.3+: ProcessGroupNCCL::shutdown).
// - Fused AdamW: at::_fused_adamw_ (one multi-tensor kernel) on CUDA from
//   2.0, on the CPU from 2.4; 1.13 has none.
// - CUDA streams/events: the project uses none directly; the rate meter's
//   device sync (torch::cuda::synchronize) and pinned host memory
//   (Tensor::pin_memory() without a device) are the same calls in 1.13 and
//   2.x and go through device_synchronize() below, so a later difference has
//   one place to land.
#pragma once
#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <optional>

#define MILABENCH_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

#if MILABENCH_TORCH_AT_LEAST(2, 0)
#include <ATen/ops/_fused_adamw.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#endif

namespace c10d {
class Backend;
class ProcessGroup;
}  // namespace c10d

namespace milabench::compat {

// "1.13.0", "2.6.0": the libtorch headers this file was compiled with.
inline const char* torch_version() { return TORCH_VERSION; }

#if MILABENCH_TORCH_AT_LEAST(2, 0)
using CollectiveBackend = c10d::Backend;
#else
using CollectiveBackend = c10d::ProcessGroup;
#endif

// Autocast state of one device type (kCPU or kCUDA) on this thread.
inline bool autocast_enabled(c10::DeviceType device) {
#if MILABENCH_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

inline void set_autocast_enabled(c10::DeviceType device, bool on) {
#if MILABENCH_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(device, on);
#else
  if (device == c10::DeviceType::CUDA)
    at::autocast::set_enabled(on);
  else
    at::autocast::set_cpu_enabled(on);
#endif
}

inline at::ScalarType autocast_dtype(c10::DeviceType device) {
#if MILABENCH_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                         : at::autocast::get_autocast_cpu_dtype();
#endif
}

inline void set_autocast_dtype(c10::DeviceType device, at::ScalarType dtype) {
#if MILABENCH_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CUDA)
    at::autocast::set_autocast_gpu_dtype(dtype);
  else
    at::autocast::set_autocast_cpu_dtype(dtype);
#endif
}

// The orderly end of a c10d process group before it is destroyed: 2.x's
// ProcessGroupNCCL has shutdown() (its destructor otherwise warns and aborts
// the communicators from a watchdog thread); 1.13's has none.
template <class Group>
void shutdown_process_group(Group& group) {
#if MILABENCH_TORCH_AT_LEAST(2, 3)
  group.shutdown();
#else
  (void)group;
#endif
}

// Whether this build has c10d's NCCL backend (a CUDA libtorch whose config
// defines USE_C10D_NCCL).
constexpr bool built_with_nccl() {
#ifdef USE_C10D_NCCL
  return true;
#else
  return false;
#endif
}

// Scaled-dot-product attention of q, k, v ([B, heads, T, head size]), no
// dropout, causal (position t sees positions <= t) or not, through
// libtorch's fused op; nullopt on a libtorch without it (1.13), where the
// caller computes the (masked) softmax itself.
inline std::optional<at::Tensor> fused_sdpa(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                            bool causal) {
#if MILABENCH_TORCH_AT_LEAST(2, 0)
  return at::scaled_dot_product_attention(q, k, v, {}, 0.0, causal);
#else
  (void)q, (void)k, (void)v, (void)causal;
  return std::nullopt;
#endif
}

// Whether this libtorch has a fused AdamW kernel for tensors on `device`.
inline bool has_fused_adamw(c10::DeviceType device) {
#if MILABENCH_TORCH_AT_LEAST(2, 4)
  return device == c10::DeviceType::CUDA || device == c10::DeviceType::CPU;
#elif MILABENCH_TORCH_AT_LEAST(2, 0)
  return device == c10::DeviceType::CUDA;
#else
  (void)device;
  return false;
#endif
}

// AdamW (decoupled weight decay, bias correction by each tensor's step,
// no amsgrad) over lists of one device's tensors in one multi-tensor
// kernel: PyTorch's AdamW(fused=True). `steps` are float32 scalars on the
// device, already counting this step. Call only where has_fused_adamw().
inline void fused_adamw(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                        at::TensorList exp_avg_sqs, at::TensorList steps, double lr, double beta1, double beta2,
                        double weight_decay, double eps) {
#if MILABENCH_TORCH_AT_LEAST(2, 0)
  at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, /*max_exp_avg_sqs=*/{}, steps, lr, beta1, beta2, weight_decay,
                    eps, /*amsgrad=*/false, /*maximize=*/false);
#else
  (void)params, (void)grads, (void)exp_avgs, (void)exp_avg_sqs, (void)steps, (void)lr, (void)beta1, (void)beta2,
      (void)weight_decay, (void)eps;
  TORCH_CHECK(false, "fused AdamW needs libtorch 2.0 or later");
#endif
}

// Waits for every queued kernel of the current CUDA device (the meter's
// read-back point). No-op without CUDA.
inline void device_synchronize() {
  if (torch::cuda::is_available()) torch::cuda::synchronize();
}

}  // namespace milabench::compat
