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

}  // namespace milabench
