// The only code that names and writes result files (schema: docs/result-format.md).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace milabench {

// "<name>.J<job_id>[.FAIL].<YYYYmmdd-HHMMSS-ffffff>.json" (local time, microseconds).
std::string result_file_name(const std::string& name, const std::string& job_id, bool failed);

// Writes `doc` to `path` atomically (temp file in the same folder + fsync +
// rename): a killed writer never leaves half a file. Throws std::runtime_error
// naming the path when it cannot write.
void write_json_atomic(const std::string& path, const nlohmann::json& doc);
// Same for raw bytes (binary safe).
void write_text_atomic(const std::string& path, const std::string& text);

// Machine inventory for the result: hostname, CPU model, cores, RAM (MiB),
// GPU names (NVML when it loads, else /proc/driver/nvidia; no CUDA init), kernel.
nlohmann::json machine_inventory();

// The result's "isolation": the launcher's MILARUN_ISOLATION (JSON, see
// launch/isolation.hpp) when set and valid, else {"kind": "affinity"} (or
// "none" when this process may use every online CPU) with this process's
// CPUs; always with "cpus_observed", this process's affinity now, so a reader
// can check the confinement took effect. Schema: docs/result-format.md.
nlohmann::json isolation_record();
// GPU names and NVIDIA driver version (from /proc/driver/nvidia, no CUDA
// init; driver null without one), kernel.
nlohmann::json machine_inventory();

// Driver version from the first line of /proc/driver/nvidia/version
// ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  ..." or
// "... Open Kernel Module for x86_64  550.54.14  ..."): the first dotted
// number after "Kernel Module"; "" when there is none.
std::string nvidia_driver_version(const std::string& line);

// Peak resident set of this process in MiB (VmHWM).
double peak_rss_mb();

}  // namespace milabench
