// DataParallelGroup: the ranks of one data-parallel training run, met
// through c10d (a TCPStore hosted by rank 0, then ProcessGroupGloo on CPU or
// ProcessGroupNCCL on CUDA). The c10d headers stay in data_parallel.cpp.
//
// Gradients live in one flat float buffer (each parameter's .grad() is a view
// into it, as DDP's gradient_as_bucket_view) with one extra slot carrying a
// "stop" vote, so a single allreduce per step both averages the gradients and
// lets every rank leave the loop on the same step.
#pragma once
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "launch/rendezvous.hpp"

namespace milabench {

class DataParallelGroup {
 public:
  // world_size 1: no store, no process group; every call is local, unless
  // `group_when_alone` (the original's --distributed-dataparallel with one
  // rank still formed a process group and all-reduced). Otherwise connects (rank 0 listens on master_addr:master_port)
  // and waits up to `timeout` for the others. backend: "gloo" or "nccl" (nccl needs a libtorch with CUDA and this file
  // built with USE_C10D_NCCL). Throws std::runtime_error with one line naming the backend or the address when it
  // cannot.
  DataParallelGroup(const Rendezvous& where, const std::string& backend, std::chrono::milliseconds timeout,
                    bool group_when_alone = false);
  ~DataParallelGroup();
  DataParallelGroup(const DataParallelGroup&) = delete;
  DataParallelGroup& operator=(const DataParallelGroup&) = delete;

  int rank() const { return where_.rank; }
  int world_size() const { return where_.world_size; }
  const std::string& backend() const { return backend_; }

  // Copies rank 0's values of `params` to every rank, then makes each
  // parameter's gradient a zeroed view into the flat buffer (float32, on the
  // parameters' device). Call once, before the first backward.
  void attach(const std::vector<torch::Tensor>& params);
  // Zeroes every gradient (the whole flat buffer).
  void zero_grad();
  // Averages the gradients over the ranks and shares each rank's `stop` vote.
  // Returns true when any rank voted to stop. Every rank must call it the same
  // number of times.
  bool average_gradients(bool stop);
  // Rank 0 receives every rank's `mine`, in rank order; the others get {}
  // after theirs was delivered. Goes through the store.
  std::vector<std::string> gather_to_rank0(const std::string& mine);

 private:
  struct Impl;
  Rendezvous where_;
  std::string backend_;
  std::unique_ptr<Impl> impl_;
  torch::Tensor flat_;  // gradients + the stop slot
};

// "gloo" on CPU, "nccl" on CUDA; `requested` when not empty.
std::string default_backend(const torch::Device& device, const std::string& requested);

}  // namespace milabench
