#include "devices/gpu_ids.hpp"

#include <dirent.h>

#include <cstdlib>

#include "devices/nvml.hpp"

namespace milabench {

std::vector<std::string> visible_gpu_ids(const std::optional<std::string>& cuda_visible, const std::string& proc_dir) {
  std::vector<std::string> ids;
  if (cuda_visible) {
    std::string cur;
    for (char c : *cuda_visible + ",") {
      if (c == ',') {
        if (!cur.empty()) ids.push_back(cur);
        cur.clear();
      } else if (c != ' ') {
        cur += c;
      }
    }
    return ids;
  }
  DIR* d = opendir(proc_dir.c_str());
  if (!d) return ids;
  int n = 0;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") ++n;
  }
  closedir(d);
  for (int i = 0; i < n; ++i) ids.push_back(std::to_string(i));
  return ids;
}

std::vector<std::string> detect_gpu_ids() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!v && Nvml::instance().available()) {
    std::vector<std::string> ids;
    for (int i = 0, n = Nvml::instance().device_count(); i < n; ++i) ids.push_back(std::to_string(i));
    return ids;
  }
  return visible_gpu_ids(v ? std::optional<std::string>(v) : std::nullopt);
}

std::string pin_cuda_device_order() {
  const char* order = std::getenv("CUDA_DEVICE_ORDER");
  if (!order) {
    ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
    return "";
  }
  if (cuda_numbers_follow_nvml()) return "";
  return std::string("warning: CUDA_DEVICE_ORDER=") + order +
         ": CUDA numbers the GPUs in another order than NVML, so the GPU readings of runs on GPUs named by number "
         "(name, telemetry, energy, contention, MFU peak) are left out; unset it, or name GPUs by UUID in "
         "CUDA_VISIBLE_DEVICES";
}

}  // namespace milabench
