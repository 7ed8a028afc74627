// The result record: what a run's result document holds for the suite's
// readers (summary, resume, rerun, the store), read from the JSON once with
// its types checked. The keys that decide whether a run counts are written by
// write_result_identity / write_result_outcome below, for every writer (the
// run harness, src/run/result_keys.hpp; the orchestrator's failure result,
// suite/run_outcome.hpp); the schema is docs/result-format.md.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/failure_kind.hpp"

namespace milabench {

// 2: "gpu" is the device name, "device" an int, "devices" a list,
// "sub_job", timings.setup, timings.train.{type,start,end,metrics}, "milarun".
constexpr int kResultSchemaVersion = 2;

// A comma list of device ids ("0,1", "3") as JSON: ints where an id is a
// number, strings otherwise (e.g. a GPU UUID); "" gives [].
nlohmann::json device_ids_json(const std::string& list);

// The share of its inputs a run may skip (corrupt or unreadable images,
// metrics.images_skipped) and still count: past it the summary counts the
// run as failed, kind bad_data, since skipping is less work per example.
constexpr double kMaxSkippedInputShare = 0.01;

// A run that did not have its devices' whole capacity during its summary
// window is flagged as contended by the summary, the report and the jobs
// line: counted, since it is evidence, but its rate may understate the
// machine. It lost more than this share of the window to one of: other
// processes on its CPUs (monitor.foreign_cpu.window_share), other processes
// on the hyperthreads of its cores outside its CPUs, each such thread busy
// this share of the time on average (monitor.sibling_cpu.window_share), stalls on
// memory (monitor.memory_stall.window_share, when the run itself took at
// least kContendedMajorFaultsPerS major page faults a second in the window:
// at the system scope a neighbour's stalls count too), its CPUs throttled
// for heat (monitor.cpu_throttle.window_share), for a CUDA run a GPU slowed
// down for heat or a power brake (gpu_monitor.*.slowdown.window_share); or,
// for a one-process CUDA run, another process held a CUDA context on one of
// its GPUs (gpu_monitor.*.compute_processes); or its process was stopped, not
// running at all (monitor.stopped.window_share: SIGSTOP, a debugger, a
// frozen cgroup; the window rule waits such a stop out of the window where
// --max-extension allows). See contention_signs.
constexpr double kContendedShare = 0.10;
constexpr double kContendedMajorFaultsPerS = 1.0;

// monitor.foreign_cpu.window_share of a result's "monitor" object when it
// speaks for the run: nullopt when absent, or when a CPU quota capped the
// run below its CPU count (usable_cpus < cpus: others' use of those CPUs then
// need not have slowed it).
std::optional<double> foreign_cpu_window_share(const nlohmann::json& monitor);

struct TrainTiming {
  std::string key;            // "train", or "train_R" for rank R of a group
  std::vector<double> rates;  // examples/s per slice (null/NaN read as NaN)
  nlohmann::json doc;         // the whole entry (for evidence, energy)
};

struct ResultRecord {
  std::string name;
  std::string experiment;  // "experiment", else "workload" (what `rerun` runs again)
  std::string dataroot;
  std::vector<std::string> arguments;                 // the workload argv (after --)
  bool arguments_recorded = false;                    // the file has "arguments" (older files may not)
  nlohmann::json environ = nlohmann::json::object();  // recorded environment variables
  std::string job_id;                                 // "" when null/absent: run by hand, not counted
  bool success = false;
  std::optional<FailureKind> failure_kind;  // as written; nullopt when absent or not a known kind
  bool sub_job = false;                     // "sub_job" (older files: "subjob")
  std::optional<int> device_count;
  std::string partition_scheme;                // job.partition_scheme.type when the result records it (the original's)
  std::optional<std::string> visible_devices;  // environ.CUDA_VISIBLE_DEVICES
  std::optional<std::string> cpu_partition;    // environ.MILARUN_CPU_PARTITION
  int world_size = 1;                          // distributed.world_size
  std::vector<TrainTiming> trains;             // timings "train*" entries
  std::optional<double> program_time;          // timings.program.time
  nlohmann::json metrics = nlohmann::json::object();
  nlohmann::json gpu_monitor = nlohmann::json::object();
  std::optional<double> rss_peak_mb;        // memory.rss_peak_mb
  double images_skipped = 0;                // metrics.images_skipped (0 when absent)
  std::optional<double> foreign_cpu_share;  // foreign_cpu_window_share(monitor)
  // A CUDA run ("cuda": true) of one process: the most processes with a
  // CUDA context on one of its GPUs in its window, less its own; nullopt for
  // a CPU run, a data-parallel group (its ranks can show on each other's
  // GPUs) or when unread.
  std::optional<int> other_gpu_processes;
  std::optional<double> sibling_cpu_share;   // monitor.sibling_cpu.window_share (hyperthreads outside its CPUs)
  std::optional<double> memory_stall_share;  // monitor.memory_stall.window_share ("full": all its scope's tasks)
  std::optional<double> major_faults_per_s;  // monitor.memory_stall.window_major_faults_per_s (its own)
  std::optional<double> cpu_throttle_share;  // monitor.cpu_throttle.window_share
  std::optional<double> gpu_slowdown_share;  // a CUDA run: the largest gpu_monitor.*.slowdown.window_share
  std::optional<double> stopped_share;       // monitor.stopped.window_share (the process did not run)

  // contention_signs(*this) is not empty.
  bool contended() const;

  // images_skipped / (images_skipped + timings.train.count of the first
  // train entry); 0 when nothing was skipped, 1 when it has no count.
  double skipped_share() const;

  // How its work differs from the original's (the report marks both beside
  // the test's numbers): opt-in shortcuts, less work (metrics.shortcuts,
  // docs/fidelity.md), and stand-ins, a different environment or data
  // ("stand_ins", results/stand_ins.hpp).
  std::vector<std::string> shortcuts;
  std::vector<std::string> stand_ins;

  // Counted by the summary: has a job id and is not a sub-job (report.py's _filter).
  bool counted() const { return !job_id.empty() && !sub_job; }
  // report.py's _group: "name.<device_count>" for a gpu-progression result
  // of the original (its name lacks the count); the name otherwise (ours
  // already carry it: "<suite>.<test>.<K>").
  std::string group() const;
  // The device this result is "per GPU" for (report.py: CUDA_VISIBLE_DEVICES
  // when it names one device; ours, on a machine without GPUs, the CPU
  // partition); "" for a multi-device run (a group of world_size > 1 too).
  std::string pergpu_device() const;
};

// Reads a result document. nullopt (and `why`) when it is not one: not an
// object, no "name" string, or "arguments" not a list of strings.
std::optional<ResultRecord> parse_result_record(const nlohmann::json& doc, std::string* why = nullptr);

// The summary's record of a run's contention readings (contended_runs
// entries): {"cpu_share", "sibling_cpu_share", "memory_stall_share", "major_faults_per_s",
// "cpu_throttle_share", "gpu_slowdown_share", "other_gpu_processes",
// "stopped_share"}, each
// null when unread.
nlohmann::json contention_readings(const ResultRecord& r);

// What a run lost over the thresholds of kContendedShare, one phrase each,
// e.g. "other processes used 34% of its CPUs", "1 other process held its
// GPU"; empty for a run that had its devices to itself.
std::vector<std::string> contention_signs(const ResultRecord& r);

// "" for a run that had its devices to itself; else its signs joined, then
// " during its summary window".
std::string contention_text(const ResultRecord& r);

// The writer side of the keys parse_result_record decides on, shared by every
// writer of a result: the run harness (run/run_harness.cpp, run/result_keys.cpp)
// and the orchestrator's result for a run that left none (suite/run_outcome.cpp).
//
// "schema_version", "name", "job_id" (null when ""), and the device keys:
// "devices" (device_ids_json of `device_list`) and "device" (the one id when
// there is exactly one, else null).
void write_result_identity(nlohmann::json& doc, const std::string& name, const std::string& job_id,
                           const std::string& device_list);
// "success", "error" (null on success) and "failure_kind" (absent on success).
void write_result_outcome(nlohmann::json& doc, std::optional<FailureKind> failure, const std::string& error);

}  // namespace milabench
