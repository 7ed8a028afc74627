// Which GPUs this process sees, without initialising CUDA.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace milabench {

// Device ids visible to this process, as strings to put in
// CUDA_VISIBLE_DEVICES. `cuda_visible` is the value of CUDA_VISIBLE_DEVICES
// (nullopt = unset): when set, its comma list is used as-is ("" = none);
// otherwise one id "0".."n-1" per entry of `proc_dir` (missing dir = none).
std::vector<std::string> visible_gpu_ids(const std::optional<std::string>& cuda_visible,
                                         const std::string& proc_dir = "/proc/driver/nvidia/gpus");

// Same, reading this process's environment; with CUDA_VISIBLE_DEVICES unset,
// NVML's device count (dlopen'ed, see devices/nvml.hpp) is used when NVML
// loads, else /proc/driver/nvidia/gpus.
std::vector<std::string> detect_gpu_ids();

// CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; NVML
// numbers them by PCI bus. milarun maps a CUDA device number to its NVML GPU
// (the run's GPU name and MFU peak, its telemetry and energy, the GPU-side
// contention checks, the CPUs near it), so every milarun process calls this
// first: it sets CUDA_DEVICE_ORDER=PCI_BUS_ID where it is unset, before CUDA
// starts, and the runs inherit it. Returns "", or the warning line to print
// when the variable holds another order (numbers are then not mapped:
// Nvml::index_of answers -1 and the GPU readings are left out, not taken
// from another GPU).
std::string pin_cuda_device_order();

}  // namespace milabench
