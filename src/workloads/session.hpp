// Session: what a workload sees of the harness while it trains (torch-facing).
// Contract: the workload calls step(n) after every iteration with the number of
// examples it processed; it stops as soon as step() returns false. The loss is
// passed as a tensor and read back (a device sync) only at slice boundaries.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace milabench {

class RateMeter;

class Session {
 public:
  Session(RateMeter& meter, torch::Device device, std::string dataroot);

  // Device the workload must train on (CPU unless --cuda and CUDA available).
  torch::Device device() const { return device_; }
  // Root folder of the datasets (-d / MILARUN_DATAROOT).
  const std::string& dataroot() const { return dataroot_; }

  // Records n examples done. Returns false once --max-count is reached.
  // `loss` (may be undefined) is read only when a 0.5 s slice closes; a
  // non-finite loss throws std::runtime_error("non-finite loss ...").
  bool step(int64_t n, const torch::Tensor& loss = {});

  // Result-file fields the workload owns.
  void set_model(const torch::nn::Module& model);       // model.parameters
  void set_model_parameters(int64_t count);            // when there are several nets
  void set_dataset(const nlohmann::json& provenance);  // e.g. {"name":"mnist","synthetic":true}
  void set_metric(const std::string& key, const nlohmann::json& value);

  // Ends this process's measurement (no step() after it) and returns its
  // timings entry as the harness would record it under "train".
  nlohmann::json finish_meter();
  // Replaces the result's timings "train" entry by these entries (e.g.
  // {"train_0": ..., "train_1": ...}: every rank of a data-parallel run, as
  // the original's sub-job merge); the summary counts every "train*" key.
  void set_timings(const nlohmann::json& entries) { extra_["timings"] = entries; }

  // The result's "distributed" block (rank, world_size, backend, ...). A rank
  // whose result is not the group's (counted = false) is marked "subjob":
  // the summary skips it, rank 0's result carries every rank's timings.
  void set_distributed(const nlohmann::json& info, bool counted);

  const nlohmann::json& extra() const { return extra_; }

  // Called each time a rate slice closes (count so far, slice rate in
  // examples/s, loss when one was passed). Set by the harness for progress.
  using SliceHook = std::function<void(int64_t count, double rate, std::optional<double> loss)>;
  void on_slice(SliceHook hook) { on_slice_ = std::move(hook); }

 private:
  RateMeter& meter_;
  torch::Device device_;
  std::string dataroot_;
  nlohmann::json extra_ = nlohmann::json::object();
  int64_t model_parameters_ = 0;
  SliceHook on_slice_;
};

}  // namespace milabench
