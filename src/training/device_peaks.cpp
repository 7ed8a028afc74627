#include "training/device_peaks.hpp"

#include <sys/resource.h>

#include "devices/gpu_ids.hpp"
#include "devices/nvml.hpp"
#include "generated/torch_layout.h"  // MILABENCH_HAVE_C10_CUDA
#ifdef MILABENCH_HAVE_C10_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace milabench {

std::optional<DensePeak> dense_bf16_peak(const std::string& device_name) {
  // NVIDIA datasheets, dense BF16 tensor throughput (the sparse figures are twice these).
  static const DensePeak table[] = {
      {"H200", 989.4e12, "H200 (SXM) dense bf16 989.4 TFLOP/s"},
      {"H100 PCIe", 756.0e12, "H100 PCIe dense bf16 756 TFLOP/s"},
      {"H100 NVL", 835.0e12, "H100 NVL dense bf16 835 TFLOP/s"},
      {"H100", 989.4e12, "H100 SXM dense bf16 989.4 TFLOP/s"},
      {"B200", 2250e12, "B200 dense bf16 2250 TFLOP/s"},
      {"A100", 312e12, "A100 dense bf16 312 TFLOP/s"},
      {"L40S", 362.05e12, "L40S dense bf16 362 TFLOP/s"},
      {"A10", 125e12, "A10 dense bf16 125 TFLOP/s"},
  };
  for (const auto& p : table)
    if (device_name.find(p.match) != std::string::npos) return p;
  return std::nullopt;
}

std::string cuda_device_name(const torch::Device& device) {
  if (!device.is_cuda()) return "";
  const auto ids = detect_gpu_ids();
  const size_t i = device.has_index() ? size_t(device.index()) : 0;
  if (i >= ids.size()) return "";
  Nvml& nvml = Nvml::instance();
  const int index = nvml.index_of(ids[i]);
  if (index < 0) return "";
  auto info = nvml.info(index);
  return info ? info->name : "";
}

nlohmann::json mfu_metric(const torch::Device& device, double flops_per_unit, double units_per_second,
                          const std::string& formula) {
  nlohmann::json m = {{"value", nullptr}, {"flops_per_unit", flops_per_unit}, {"formula", formula}};
  if (!device.is_cuda()) {
    m["why"] = "CPU run: no dense bf16 peak to divide by";
    return m;
  }
  const std::string name = cuda_device_name(device);
  const auto peak = dense_bf16_peak(name);
  if (!peak) {
    m["why"] = "no dense bf16 peak for device '" + name + "' in src/training/device_peaks.cpp";
    return m;
  }
  m["value"] = flops_per_unit * units_per_second / peak->bf16_flops;
  m["peak"] = peak->name;
  m["peak_flops"] = peak->bf16_flops;
  m["device"] = name;
  return m;
}

nlohmann::json peak_memory_metric(const torch::Device& device) {
#ifdef MILABENCH_HAVE_C10_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.has_index() ? device.index() : 0);
    // Index 0 is StatType::AGGREGATE (all pools) in every libtorch; the enum
    // itself moved (c10::cuda::CUDACachingAllocator on 1.13,
    // c10::CachingDeviceAllocator on 2.x), so it is not named here.
    const int64_t peak = stats.allocated_bytes[0].peak;
    return nlohmann::json{{"bytes", peak}, {"source", "cuda_caching_allocator_peak"}};
  }
#endif
  (void)device;
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return {{"bytes", int64_t(u.ru_maxrss) * 1024}, {"source", "peak_rss"}};
}

}  // namespace milabench
