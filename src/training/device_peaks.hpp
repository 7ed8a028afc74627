// What the 2026 profile reports beside the rate: MFU over the device's dense
// bf16 peak (one table, here) and the run's peak memory. Shared by the
// transformer workloads (gpt2; llama, vit, dit to come).
#pragma once
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace milabench {

struct DensePeak {
  const char* match;  // a substring of the device name (first match wins)
  double bf16_flops;  // dense bf16 tensor FLOP/s, the vendor's datasheet (no sparsity)
  const char* name;   // what the result names
};

// The peak of the device named `device_name` (NVML's name, e.g. "NVIDIA H100
// 80GB HBM3"); nullopt when the table has none.
std::optional<DensePeak> dense_bf16_peak(const std::string& device_name);

// NVML's name of the CUDA device `device` ("" when unknown or not CUDA).
std::string cuda_device_name(const torch::Device& device);

// The result's "mfu" metric: {"value": flops_per_unit x rate / peak, "peak":
// name, "peak_flops", "flops_per_unit", "formula"}, or {"value": null,
// "why": ...} on a CPU or a device without a peak in the table.
nlohmann::json mfu_metric(const torch::Device& device, double flops_per_unit, double units_per_second,
                          const std::string& formula);

// The result's "peak_memory" metric: on CUDA the caching allocator's peak
// allocated bytes ({"bytes", "source": "cuda_caching_allocator_peak"}), on the
// CPU this process's peak resident set ({"bytes", "source": "peak_rss"}).
nlohmann::json peak_memory_metric(const torch::Device& device);

}  // namespace milabench
