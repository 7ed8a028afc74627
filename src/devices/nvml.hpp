// NVIDIA's management library, loaded at run time with dlopen: no build-time
// dependency, no CUDA initialisation. Where libnvidia-ml.so.1 is absent or
// nvmlInit fails (no driver, no GPU) the object is simply unavailable and
// every query answers "unknown"; nothing throws.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace milabench {

struct GpuInfo {
  std::string name;        // "NVIDIA H100 80GB HBM3"
  std::string uuid;        // "GPU-..."
  std::string pci_bus_id;  // "00000000:3B:00.0" as NVML gives it
  // The power limit the driver enforces and the board's default, watts
  // (nvidia-smi -pl lowers the first); nullopt when unread.
  std::optional<double> power_limit_w, default_power_limit_w;
  // MIG mode (A100, H100 and later): true when the GPU is split into MIG
  // instances, each a fraction of it that CUDA sees as a device of its own;
  // nullopt where NVML does not report it (older GPUs or drivers).
  std::optional<bool> mig;
  std::vector<std::string> mig_devices;  // its MIG devices' names ("NVIDIA A100-SXM4-80GB MIG 1g.10gb")
};

// One reading of one GPU; a field is nullopt when the GPU/driver does not report it.
struct GpuSample {
  std::optional<double> load;            // utilisation, 0..1
  std::optional<double> memory_used_mb;  // MiB
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  std::optional<double> energy_j;  // driver's cumulative counter since load, joules
  std::optional<double> sm_clock_mhz;
  std::optional<uint64_t> throttle_reasons;  // NVML clocks-throttle bit mask
  // Processes with a CUDA context on the GPU, this one included when it has
  // one, from every container on the host (the count only: NVML's process
  // records change layout between driver versions).
  std::optional<int> compute_processes;
};

class Nvml {
 public:
  // The process-wide instance, loaded on first use from "libnvidia-ml.so.1".
  static Nvml& instance();

  // Loads `library` (a soname or path) and calls nvmlInit_v2.
  explicit Nvml(const std::string& library);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const;
  const std::string& why_unavailable() const { return why_; }  // "" when available

  int device_count() const;  // 0 when unavailable
  std::optional<GpuInfo> info(int index) const;
  GpuSample sample(int index) const;

  // NVML index of a CUDA_VISIBLE_DEVICES entry: a number is taken as the
  // index when cuda_numbers_follow_nvml(), "GPU-..." is looked up by UUID.
  // -1 when unknown.
  int index_of(const std::string& cuda_id) const;

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  std::string why_;
};

// Whether CUDA numbers GPUs as NVML does: CUDA_DEVICE_ORDER is PCI_BUS_ID,
// or unset (milarun's processes set it first: pin_cuda_device_order).
bool cuda_numbers_follow_nvml();

// The throttle reasons that slow a GPU below what it can do under load:
// hw_slowdown, sw_thermal_slowdown, hw_thermal_slowdown and
// hw_power_brake_slowdown (heat, or an external power brake). sw_power_cap,
// the board's own power limit, is the GPU working as configured, not a
// slowdown; idle and clock settings are not either.
constexpr uint64_t kNvmlSlowdownReasons = 0x8 | 0x20 | 0x40 | 0x80;

// Names of the bits set in an NVML throttle-reason mask ("sw_power_cap",
// "hw_thermal_slowdown", ...); unknown bits as "bit_N".
std::vector<std::string> throttle_reason_names(uint64_t mask);

}  // namespace milabench
