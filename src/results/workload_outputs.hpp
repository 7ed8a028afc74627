// WorkloadOutputs: what a workload adds to its result, typed. The torch side
// fills it through Session (training/session.hpp); the run harness writes it
// into the result document with write_workload_outputs, next to the keys of
// write_result_identity and write_result_outcome (results/result_record.hpp),
// and parse_result_record reads them back. Torch-free.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

namespace milabench {

struct WorkloadOutputs {
  // "metrics": the workload's own figures (loss at the last closed slice,
  // mfu, world_size, ...), merged over what the document already holds.
  nlohmann::json metrics = nlohmann::json::object();
  std::optional<int64_t> model_parameters;  // "model": {"parameters"}
  // "dataset": the provenance of its data; "stand_ins" is derived from it
  // (results/stand_ins.hpp), so the two cannot disagree.
  std::optional<nlohmann::json> dataset;
  // The entries that replace the meter's timings "train" (rank 0 of a
  // data-parallel run: "train_0", "train_1", ...); written by the harness's
  // timings, not by write_workload_outputs.
  std::optional<nlohmann::json> rank_timings;
  std::optional<nlohmann::json> distributed;  // "distributed": rank, world_size, backend, ...
  bool sub_job = false;  // "sub_job": a rank whose result is not its group's (the summary skips it)
};

// Writes "metrics" (merged), "model.parameters", "dataset" + "stand_ins",
// "distributed" and "sub_job" (only when true) into `doc`; absent fields
// leave the document's keys as they are.
void write_workload_outputs(nlohmann::json& doc, const WorkloadOutputs& w);

}  // namespace milabench
