// The result document on the writing side, typed. Every writer fills one
// ResultDocument — the run harness (run/run_harness.cpp, its pieces from
// run/result_keys.hpp) and the orchestrator for a run that left no result
// (suite/run_outcome.cpp) — and result_json() is the one place that turns it
// into the JSON document (docs/result-format.md). parse_result_record
// (results/result_record.hpp) reads the same keys back;
// tests/core/result_document_test.cpp round-trips both writers' documents,
// the failure results of every kind among them. Torch-free.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/failure_kind.hpp"
#include "results/workload_outputs.hpp"

namespace milabench {

// What `milarun rerun` and `milarun jobs --resume` need to run it again.
struct RunRequest {
  std::string experiment;              // "experiment": the module path (milarun.models.x:main)
  std::string dataroot;                // "dataroot"
  std::vector<std::string> arguments;  // "arguments": the workload argv after --, numbers normalised
  // "environ": the recorded variables (the harness: MILARUN*, CUDA*, *NUM_THREADS*,
  // SLURM*; the orchestrator: the device variables it set).
  nlohmann::json environ = nlohmann::json::object();
};

// Where and with what the harness ran it.
struct RunDescription {
  std::vector<std::string> call;  // "call": the whole command line
  std::string workload;           // "workload": the short name
  std::string count_unit;         // "count_unit": what one counted example is
  std::string outdir;             // "outdir": -o as given
  std::string hostname;           // "hostname"
  // "inventory": monitor/inventory's machine_inventory plus libtorch_version,
  // malloc and torch_threads.
  nlohmann::json inventory = nlohmann::json::object();
  nlohmann::json milarun = nlohmann::json::object();  // "milarun": results/version.hpp's version_record
};

// The device torch ran on.
struct DeviceKeys {
  std::string gpu;           // "gpu": the GPU's name from NVML, else the CPU model
  int64_t device_count = 0;  // "device_count": CUDA devices visible, 0 on the CPU
  bool cuda = false;         // "cuda"
};

struct ResultDocument {
  // Identity: "schema_version", "name", "job_id" (null when ""), "devices"
  // and "device" from device_list (write_result_identity).
  std::string name, job_id, device_list;
  // Outcome: success when failure is nullopt; else "failure_kind" and
  // "error" (write_result_outcome).
  std::optional<FailureKind> failure;
  std::string error;

  std::optional<RunRequest> request;          // absent when the orchestrator's command has no `run`
  std::optional<RunDescription> description;  // the harness's only
  std::optional<DeviceKeys> device;           // the harness's only
  std::optional<nlohmann::json> isolation;    // "isolation": the run's CPU/memory partition record
  // Monitor::stop()'s "gpu_monitor" and "monitor" (monitor/monitor.hpp); the harness's only.
  std::optional<nlohmann::json> gpu_monitor, monitor;
  WorkloadOutputs outputs;  // "metrics", "model", "dataset" + "stand_ins", "distributed", "sub_job"
  // "timings": "train" (or the ranks' "train_R"), "setup", "program", in seconds.
  nlohmann::json timings = nlohmann::json::object();
  std::optional<double> rss_peak_mb;  // "memory": {"rss_peak_mb"}

  // The orchestrator's, for a run that left no result of its own.
  std::optional<double> wall_time;                  // "wall_time": seconds the process ran
  std::string log;                                  // "log": its log file, when it has one
  std::string failed_group_member;                  // "failed_group_member": the job id that failed first
  nlohmann::json extra = nlohmann::json::object();  // --extra's keys, merged over the rest
};

// The document. --extra's keys are merged over the body but never over the
// identity or the outcome, which are written last.
nlohmann::json result_json(const ResultDocument& d);

}  // namespace milabench
