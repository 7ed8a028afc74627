// A stand-in libnvidia-ml for tests: two GPUs with fixed, known readings, so
// the dlopen binding and the monitor's GPU path run for real on machines
// without NVIDIA hardware. Energy grows by 1.5 J per query of GPU 1. GPU 1
// holds 2 processes with a CUDA context, GPU 0 none. GPU 1 slows down for
// heat while FAKE_NVML_SLOWDOWN=1. GPU 0 does not report MIG mode (an older
// GPU); GPU 1 is split into two MIG instances while FAKE_NVML_MIG=1.
#include <cstdlib>
#include <cstring>

namespace {
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
int gpus[2] = {0, 1};
int mig_instances[2] = {10, 12};  // GPU 1's instances in slots 0 and 2 of its 7
unsigned long long energy_mj[2] = {1000, 5000};
bool inited = false;
}  // namespace

extern "C" {
int nvmlInit_v2() {
  inited = true;
  return 0;
}
int nvmlShutdown() {
  inited = false;
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned* n) {
  *n = 2;
  return inited ? 0 : 1;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** d) {
  if (!inited || i > 1) return 2;
  *d = &gpus[i];
  return 0;
}
static int idx(void* d) { return *static_cast<int*>(d); }
int nvmlDeviceGetName(void* d, char* buf, unsigned len) {
  const int i = idx(d);
  std::strncpy(buf,
               i == 10   ? "Fake GPU B MIG 1g.10gb"
               : i == 12 ? "Fake GPU B MIG 3g.40gb"
               : i       ? "Fake GPU B"
                         : "Fake GPU A",
               len);
  return 0;
}
static bool mig_on() {
  const char* mig = std::getenv("FAKE_NVML_MIG");
  return mig && mig[0] == '1';
}
int nvmlDeviceGetMigMode(void* d, unsigned* current, unsigned* pending) {
  if (!idx(d)) return 3;  // NVML_ERROR_NOT_SUPPORTED
  *current = *pending = mig_on() ? 1 : 0;
  return 0;
}
int nvmlDeviceGetMaxMigDeviceCount(void* d, unsigned* n) {
  *n = idx(d) ? 7 : 0;
  return 0;
}
int nvmlDeviceGetMigDeviceHandleByIndex(void* d, unsigned i, void** mig) {
  if (!idx(d) || !mig_on() || (i != 0 && i != 2)) return 6;  // NVML_ERROR_NOT_FOUND
  *mig = &mig_instances[i / 2];
  return 0;
}
int nvmlDeviceGetUUID(void* d, char* buf, unsigned len) {
  std::strncpy(buf, idx(d) ? "GPU-bbbb-1111" : "GPU-aaaa-0000", len);
  return 0;
}
int nvmlDeviceGetPciInfo_v3(void* d, PciInfo* p) {
  std::memset(p, 0, sizeof *p);
  std::strcpy(p->bus_id, idx(d) ? "00000000:82:00.0" : "00000000:03:00.0");
  return 0;
}
int nvmlDeviceGetUtilizationRates(void* d, unsigned* u) {
  u[0] = idx(d) ? 75 : 10;
  u[1] = 20;
  return 0;
}
int nvmlDeviceGetMemoryInfo(void* d, unsigned long long* m) {
  m[0] = 16ULL << 30;
  m[2] = (idx(d) ? 3ULL : 1ULL) << 30;  // used
  m[1] = m[0] - m[2];
  return 0;
}
int nvmlDeviceGetTemperature(void* d, int sensor, unsigned* t) {
  if (sensor != 0) return 2;
  *t = idx(d) ? 61 : 40;
  return 0;
}
int nvmlDeviceGetPowerUsage(void* d, unsigned* mw) {
  *mw = idx(d) ? 250000 : 50000;
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(void* d, unsigned long long* mj) {
  *mj = energy_mj[idx(d)];
  energy_mj[idx(d)] += 1500;
  return 0;
}
int nvmlDeviceGetClockInfo(void* d, int type, unsigned* mhz) {
  if (type != 1) return 2;
  *mhz = idx(d) ? 1980 : 1410;
  return 0;
}
// Both GPUs' default power limit is 400 W; GPU 1 enforces
// FAKE_NVML_POWER_LIMIT_MW milliwatts when that is set at the query.
int nvmlDeviceGetPowerManagementDefaultLimit(void*, unsigned* mw) {
  *mw = 400000;
  return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(void* d, unsigned* mw) {
  const char* limit = std::getenv("FAKE_NVML_POWER_LIMIT_MW");
  *mw = idx(d) && limit ? static_cast<unsigned>(std::strtoul(limit, nullptr, 10)) : 400000;
  return 0;
}
// sw_power_cap / gpu_idle; with FAKE_NVML_SLOWDOWN=1 in the environment at
// the query, GPU 1 also reports hw_thermal_slowdown.
int nvmlDeviceGetCurrentClocksThrottleReasons(void* d, unsigned long long* r) {
  const char* slow = std::getenv("FAKE_NVML_SLOWDOWN");
  *r = idx(d) ? 0x4 | (slow && slow[0] == '1' ? 0x40 : 0) : 0x1;
  return 0;
}
// The count-only call: room for *n = 0 records in; NVML_ERROR_INSUFFICIENT_SIZE
// and the count out when there are processes (a null count or array is
// NVML_ERROR_INVALID_ARGUMENT, as some drivers answer).
int nvmlDeviceGetComputeRunningProcesses_v3(void* d, unsigned* n, void* infos) {
  if (n == nullptr || infos == nullptr) return 2;
  const unsigned have = idx(d) ? 2 : 0;
  const bool fits = *n >= have;
  *n = have;
  return fits ? 0 : 7;
}
}
