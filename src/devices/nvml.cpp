#include "devices/nvml.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

namespace milabench {

namespace {

// The few NVML ABI types used here (from NVML's public API documentation).
using Ret = int;  // nvmlReturn_t; 0 = NVML_SUCCESS
using Device = void*;
struct Utilization {
  unsigned gpu, memory;  // percent
};
struct Memory {
  unsigned long long total, free, used;  // bytes
};
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
constexpr int kTemperatureGpu = 0;    // NVML_TEMPERATURE_GPU
constexpr Ret kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE: the count is set
constexpr int kClockSm = 1;           // NVML_CLOCK_SM

}  // namespace

struct Nvml::Api {
  void* lib = nullptr;
  Ret (*init)() = nullptr;
  Ret (*shutdown)() = nullptr;
  Ret (*count)(unsigned*) = nullptr;
  Ret (*handle)(unsigned, Device*) = nullptr;
  Ret (*handle_by_uuid)(const char*, Device*) = nullptr;
  Ret (*name)(Device, char*, unsigned) = nullptr;
  Ret (*uuid)(Device, char*, unsigned) = nullptr;
  Ret (*pci)(Device, PciInfo*) = nullptr;
  Ret (*utilization)(Device, Utilization*) = nullptr;
  Ret (*memory)(Device, Memory*) = nullptr;
  Ret (*temperature)(Device, int, unsigned*) = nullptr;
  Ret (*power)(Device, unsigned*) = nullptr;             // milliwatts
  Ret (*energy)(Device, unsigned long long*) = nullptr;  // millijoules
  Ret (*clock)(Device, int, unsigned*) = nullptr;        // MHz
  Ret (*throttle)(Device, unsigned long long*) = nullptr;
  Ret (*processes)(Device, unsigned*, void*) = nullptr;     // called with room for no record: the count only
  Ret (*power_limit)(Device, unsigned*) = nullptr;          // enforced, milliwatts
  Ret (*default_power_limit)(Device, unsigned*) = nullptr;  // milliwatts
  Ret (*mig_mode)(Device, unsigned*, unsigned*) = nullptr;  // current, pending; 1 = NVML_DEVICE_MIG_ENABLE
  Ret (*max_mig_devices)(Device, unsigned*) = nullptr;
  Ret (*mig_device)(Device, unsigned, Device*) = nullptr;  // NVML_ERROR_NOT_FOUND where no instance is

  template <class F>
  void bind(F& f, std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (void* s = dlsym(lib, n)) {
        f = reinterpret_cast<F>(s);
        return;
      }
  }
  Device device(int index) const {
    Device d = nullptr;
    if (index < 0 || !handle || handle(static_cast<unsigned>(index), &d) != 0) return nullptr;
    return d;
  }
};

Nvml& Nvml::instance() {
  static Nvml nvml("libnvidia-ml.so.1");
  return nvml;
}

Nvml::Nvml(const std::string& library) {
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    why_ = fmt::format("cannot load {}: {}", library, e ? e : "unknown error");
    return;
  }
  auto api = std::make_unique<Api>();
  api->lib = lib;
  api->bind(api->init, {"nvmlInit_v2", "nvmlInit"});
  api->bind(api->shutdown, {"nvmlShutdown"});
  api->bind(api->count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  api->bind(api->handle, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  api->bind(api->handle_by_uuid, {"nvmlDeviceGetHandleByUUID"});
  api->bind(api->name, {"nvmlDeviceGetName"});
  api->bind(api->uuid, {"nvmlDeviceGetUUID"});
  api->bind(api->pci, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
  api->bind(api->utilization, {"nvmlDeviceGetUtilizationRates"});
  api->bind(api->memory, {"nvmlDeviceGetMemoryInfo"});
  api->bind(api->temperature, {"nvmlDeviceGetTemperature"});
  api->bind(api->power, {"nvmlDeviceGetPowerUsage"});
  api->bind(api->energy, {"nvmlDeviceGetTotalEnergyConsumption"});
  api->bind(api->clock, {"nvmlDeviceGetClockInfo"});
  api->bind(api->processes, {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
                             "nvmlDeviceGetComputeRunningProcesses"});
  api->bind(api->power_limit, {"nvmlDeviceGetEnforcedPowerLimit"});
  api->bind(api->default_power_limit, {"nvmlDeviceGetPowerManagementDefaultLimit"});
  api->bind(api->mig_mode, {"nvmlDeviceGetMigMode"});
  api->bind(api->max_mig_devices, {"nvmlDeviceGetMaxMigDeviceCount"});
  api->bind(api->mig_device, {"nvmlDeviceGetMigDeviceHandleByIndex"});
  api->bind(api->throttle, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  if (!api->init || !api->count || !api->handle) {
    why_ = library + " lacks nvmlInit/nvmlDeviceGetCount/nvmlDeviceGetHandleByIndex";
    dlclose(lib);
    return;
  }
  if (Ret r = api->init(); r != 0) {
    why_ = fmt::format("nvmlInit failed (NVML error {}): no NVIDIA driver or GPU?", r);
    dlclose(lib);
    return;
  }
  api_ = std::move(api);
}

Nvml::~Nvml() {
  if (!api_) return;
  if (api_->shutdown) api_->shutdown();
  // The library stays loaded: other threads may still hold function pointers at exit.
}

bool Nvml::available() const { return api_ != nullptr; }

int Nvml::device_count() const {
  unsigned n = 0;
  if (!api_ || api_->count(&n) != 0) return 0;
  return static_cast<int>(n);
}

std::optional<GpuInfo> Nvml::info(int index) const {
  if (!api_) return std::nullopt;
  Device d = api_->device(index);
  if (!d) return std::nullopt;
  GpuInfo g;
  char buf[128] = {0};
  if (api_->name && api_->name(d, buf, sizeof buf - 1) == 0) g.name = buf;
  std::memset(buf, 0, sizeof buf);
  if (api_->uuid && api_->uuid(d, buf, sizeof buf - 1) == 0) g.uuid = buf;
  PciInfo p{};
  if (api_->pci && api_->pci(d, &p) == 0) g.pci_bus_id = std::string(p.bus_id, strnlen(p.bus_id, sizeof p.bus_id));
  unsigned mw = 0;
  if (api_->power_limit && api_->power_limit(d, &mw) == 0) g.power_limit_w = mw / 1000.0;
  if (api_->default_power_limit && api_->default_power_limit(d, &mw) == 0) g.default_power_limit_w = mw / 1000.0;
  unsigned current = 0, pending = 0, slots = 0;
  if (api_->mig_mode && api_->mig_mode(d, &current, &pending) == 0) g.mig = current == 1;
  if (g.mig.value_or(false) && api_->max_mig_devices && api_->mig_device && api_->max_mig_devices(d, &slots) == 0)
    for (unsigned i = 0; i < slots; ++i) {
      Device m = nullptr;
      std::memset(buf, 0, sizeof buf);
      if (api_->mig_device(d, i, &m) == 0 && m && api_->name && api_->name(m, buf, sizeof buf - 1) == 0)
        g.mig_devices.push_back(buf);
    }
  return g;
}

GpuSample Nvml::sample(int index) const {
  GpuSample s;
  if (!api_) return s;
  Device d = api_->device(index);
  if (!d) return s;
  Utilization u{};
  if (api_->utilization && api_->utilization(d, &u) == 0) s.load = u.gpu / 100.0;
  Memory m{};
  if (api_->memory && api_->memory(d, &m) == 0) s.memory_used_mb = m.used / (1024.0 * 1024.0);
  unsigned v = 0;
  if (api_->temperature && api_->temperature(d, kTemperatureGpu, &v) == 0) s.temperature_c = v;
  if (api_->power && api_->power(d, &v) == 0) s.power_w = v / 1000.0;
  unsigned long long e = 0;
  if (api_->energy && api_->energy(d, &e) == 0) s.energy_j = e / 1000.0;
  if (api_->clock && api_->clock(d, kClockSm, &v) == 0) s.sm_clock_mhz = v;
  if (api_->throttle && api_->throttle(d, &e) == 0) s.throttle_reasons = e;
  unsigned n = 0;            // room for no record: NVML only counts (pynvml's first call passes no array)
  alignas(8) char none[64];  // a valid pointer all the same, for drivers that refuse a null one
  if (api_->processes)
    if (Ret r = api_->processes(d, &n, none); r == 0 || r == kInsufficientSize)
      s.compute_processes = static_cast<int>(n);
  return s;
}

int Nvml::index_of(const std::string& cuda_id) const {
  if (cuda_id.empty()) return -1;
  if (cuda_id.find_first_not_of("0123456789") == std::string::npos) {
    if (!cuda_numbers_follow_nvml()) return -1;
    int i = std::stoi(cuda_id);
    return i < device_count() || !api_ ? i : -1;
  }
  if (!api_ || cuda_id.rfind("GPU-", 0) != 0) return -1;
  for (int i = 0, n = device_count(); i < n; ++i) {
    auto g = info(i);
    if (g && g.value().uuid.rfind(cuda_id, 0) == 0) return i;  // CUDA accepts UUID prefixes
  }
  return -1;
}

bool cuda_numbers_follow_nvml() {
  const char* order = std::getenv("CUDA_DEVICE_ORDER");
  return !order || std::string(order) == "PCI_BUS_ID";
}

std::vector<std::string> throttle_reason_names(uint64_t mask) {
  static const char* names[] = {"gpu_idle",
                                "applications_clocks_setting",
                                "sw_power_cap",
                                "hw_slowdown",
                                "sync_boost",
                                "sw_thermal_slowdown",
                                "hw_thermal_slowdown",
                                "hw_power_brake_slowdown",
                                "display_clock_setting"};
  std::vector<std::string> out;
  for (int b = 0; b < 64; ++b)
    if (mask & (1ULL << b)) out.push_back(b < 9 ? names[b] : fmt::format("bit_{}", b));
  return out;
}

}  // namespace milabench
