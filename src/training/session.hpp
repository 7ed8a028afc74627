// Session: what a workload sees of the harness while it trains (torch-facing).
// Contract: the workload calls begin() where the original enters its timed
// block (`with wrapper():`; for a dataloop, before fetching the batch) and
// step(n) where that block ends, with the number of examples the original
// counts; it stops as soon as step() returns false. Without a begin() since
// the previous step(), a block began when that step() returned. Set-up before
// the first block is not timed (the result records it as timings.setup).
// The loss is passed as a tensor and read back (a device sync) only when a
// slice closes; a workload whose original reads it every step does so itself.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "measure/stop_schedule.hpp"
#include "results/workload_outputs.hpp"

namespace milabench {

class RateMeter;

// Every parameter's element count (Module::parameters(): a weight tied
// under two names, as gpt2's head, is one parameter, counted once).
int64_t count_parameters(const torch::nn::Module& model);

class Session {
 public:
  // `workers`: the --workers value (0 when not given, the original's None);
  // `seed`: --seed (1234 by default).
  Session(RateMeter& meter, torch::Device device, std::string dataroot, int workers = 0, int64_t seed = 1234);

  // Device the workload must train on (CPU unless --cuda and CUDA available).
  torch::Device device() const { return device_; }
  // Root folder of the datasets (-d / MILARUN_DATAROOT).
  const std::string& dataroot() const { return dataroot_; }

  // --workers (0 when not given) and --seed, as the original's init_torch.
  int workers() const { return workers_; }
  int64_t seed() const { return seed_; }

  // Opens a timed block (no effect when one is open).
  void begin();
  // Closes the timed block: n examples done. Returns false once the run is
  // done (--max-count reached and --min-duration timed, or --until-stable).
  // `loss` (may be undefined) is read only when a 0.5 s slice closes; a
  // non-finite loss throws NonFiniteLoss (training/nonfinite_loss.hpp, a
  // std::runtime_error): the run's failure kind "nonfinite_loss".
  bool step(int64_t n, const torch::Tensor& loss = {});

  // The agreement of data-parallel ranks on their last step (when to read
  // the stop vote), from this run's --max-count and --until-stable and the
  // examples every rank counts per step (measure/stop_schedule.hpp).
  StopSchedule stop_schedule(int64_t count_per_step) const;
  // Steps in one rate slice at the last slice's rate (1 before a slice closed).
  double steps_per_slice(int64_t count_per_step) const;

  // Whether the meter synchronises the device when a block would close a
  // slice (the original passes sync=torch_settings.sync in some workloads,
  // sync=None in others). Default true; no effect on the CPU.
  void set_slice_sync(bool on);

  // Result-file fields the workload owns.
  void set_model(const torch::nn::Module& model);  // model.parameters
  void set_model_parameters(int64_t count);        // when there are several nets
  // The result's "dataset" (e.g. {"name":"mnist","synthetic":true}) and
  // "stand_ins" (its "stand_in", results/stand_ins.hpp).
  void set_dataset(const nlohmann::json& provenance);
  void set_metric(const std::string& key, const nlohmann::json& value);

  // Ends this process's measurement (no step() after it) and returns its
  // timings entry as the harness would record it under "train".
  nlohmann::json finish_meter();
  // Replaces the result's timings "train" entry by these entries (e.g.
  // {"train_0": ..., "train_1": ...}: every rank of a data-parallel run, as
  // the original's sub-job merge); the summary counts every "train*" key.
  void set_timings(const nlohmann::json& entries) { outputs_.rank_timings = entries; }

  // The result's "distributed" block (rank, world_size, backend, ...). A rank
  // whose result is not the group's (counted = false) is marked "sub_job":
  // the summary skips it, rank 0's result carries every rank's timings.
  void set_distributed(const nlohmann::json& info, bool counted);

  // What this run adds to its result (the harness writes it).
  const WorkloadOutputs& outputs() const { return outputs_; }

  // Called each time a rate slice closes (count so far, slice rate in
  // examples/s, loss when one was passed). Set by the harness for progress.
  using SliceHook = std::function<void(int64_t count, double rate, std::optional<double> loss)>;
  void on_slice(SliceHook hook) { on_slice_ = std::move(hook); }

 private:
  RateMeter& meter_;
  torch::Device device_;
  std::string dataroot_;
  int workers_ = 0;
  int64_t seed_ = 1234;
  WorkloadOutputs outputs_;
  SliceHook on_slice_;
};

}  // namespace milabench
