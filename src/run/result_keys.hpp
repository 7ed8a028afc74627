// The keys of a run's result document (docs/result-format.md) that the
// harness writes: the header (what ran, where, with what), the device keys
// with the original's names and types, and the timings entry of the meter.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/rate_meter.hpp"
#include "results/result_document.hpp"
#include "run/torch_init.hpp"
#include "workloads/workload.hpp"

namespace milabench {

struct RunIdentity {
  std::string name, job_id, dataroot, outdir;
  std::vector<std::string> call, arguments;
};

// The harness's document before the run (results/result_document.hpp):
// identity (name, job_id, the ids of CUDA_VISIBLE_DEVICES, else of
// MILARUN_CPU_PARTITION), request (experiment, dataroot, arguments, the
// recorded environ), description (call, workload, count_unit, outdir,
// hostname, inventory with libtorch_version, milarun {version, commit}),
// isolation and an empty gpu_monitor.
ResultDocument harness_document(const RunIdentity& id, const WorkloadInfo& info);

// "gpu" (the device's name: the GPU's from NVML, else `cpu_model`),
// "device_count" (CUDA devices visible, 0 on the CPU), "cuda".
DeviceKeys device_keys(const TorchSettings& torch, const std::string& cpu_model);

// The meter's entry as the original's RateLogger.report(): type, start, end
// (local time, "YYYY-mm-dd HH:MM:SS.ffffff"), wall_time, time, overhead,
// sample_duration, rates, metrics; plus count, max_count, min_duration,
// until_stable, stopped_stable. `wall_offset` = wall clock - meter clock.
nlohmann::json train_timing(const RateMeter& meter, const nlohmann::json& metrics, double wall_offset);

// Python's str(datetime.fromtimestamp(t)): local time, microseconds unless 0.
std::string python_datetime_string(double epoch_s);

}  // namespace milabench
