// What the machine and this process look like, for the result's
// "inventory", "isolation" and "memory" (docs/result-format.md).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sys/cpu_topology.hpp"

namespace milabench {

class Nvml;

// hostname, cpu_model, cpu_count, ram_mb, kernel, gpus (NVML names when it
// loads, else /proc/driver/nvidia; no CUDA init), driver (NVIDIA kernel
// module version or null), gpu_power_limits, gpu_mig, cpu_governors, cpu_boost (true,
// false or null; below): how the
// machine was configured, which moves its rates as much as its parts do.
nlohmann::json machine_inventory();

// Per NVML GPU, in index order: {"limit_w": the power limit the driver
// enforces, "default_w": the board's default}, each null when unread; [] without NVML.
nlohmann::json gpu_power_limits(const Nvml& nvml);

// Per NVML GPU, in index order: {"mig": whether it is split into MIG
// instances (null when unread), "instances": their names}; [] without NVML.
nlohmann::json gpu_mig(const Nvml& nvml);

// The distinct cpufreq governors of the CPUs under `cpu_root`
// (cpuN/cpufreq/scaling_governor), sorted; empty without cpufreq (most VMs).
std::vector<std::string> cpu_governors(const std::string& cpu_root = kCpuSysfsRoot);

// Whether the CPUs may boost above their base clock: `cpu_root`/cpufreq/boost
// (acpi-cpufreq, amd-pstate; 1 = on), else intel_pstate/no_turbo (1 = off);
// nullopt when neither can be read (most VMs).
std::optional<bool> cpu_boost(const std::string& cpu_root = kCpuSysfsRoot);

// The result's "isolation": the launcher's MILARUN_ISOLATION (JSON, see
// launch/isolation.hpp) when set and valid, else {"kind": "affinity"} (or
// "none" when this process may use every online CPU) with this process's
// CPUs; always with "cpus_observed", this process's affinity now, so a reader
// can check the confinement took effect.
nlohmann::json isolation_record();

// Driver version from the first line of /proc/driver/nvidia/version
// ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  ..." or
// "... Open Kernel Module for x86_64  550.54.14  ..."): the first dotted
// number after "Kernel Module"; "" when there is none.
std::string nvidia_driver_version(const std::string& line);

// Peak resident set of this process in MiB (VmHWM).
double peak_rss_mb();

}  // namespace milabench
