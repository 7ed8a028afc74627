// DataParallelGroup: the ranks of one data-parallel training run, met
// through c10d (a TCPStore hosted by rank 0, then ProcessGroupGloo on CPU or
// ProcessGroupNCCL on CUDA). The c10d headers stay in data_parallel.cpp.
//
// The work of torch's DistributedDataParallel, as the original's scaling
// workload used it: parameters grouped in reverse order into buckets (the
// first 1 MiB, then 25 MiB each, DDP's defaults); during backward a hook on
// each parameter copies its gradient, divided by the world size, into its
// bucket, and a bucket whose gradients are all in starts its asynchronous
// allreduce at once (in bucket order, as DDP's reducer) while backward goes
// on. After backward the group waits for the reductions and each .grad() is
// a view of its averaged bucket (DDP's gradient_as_bucket_view, without the
// copy back). A world of one rank does the same copies without the
// allreduce. The last bucket carries one extra slot, a "stop" vote, so every
// rank leaves the loop on the same step.
#pragma once
#include <torch/torch.h>

#include <chrono>
#include <cstdint>
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

  // Copies rank 0's values of `params` to every rank (as DDP's constructor),
  // builds the buckets (float32, on the parameters' device) and registers the
  // gradient hooks. Call once, before the first backward; `params` must each
  // receive one gradient per backward (no shared or unused parameters).
  void attach(const std::vector<torch::Tensor>& params, int64_t first_bucket_bytes = int64_t(1) << 20,
              int64_t bucket_bytes = int64_t(25) << 20);
  // Before each backward: drops the gradients (the hooks refill the buckets)
  // and sets this rank's stop vote.
  void zero_grad(bool stop = false);
  // After backward: waits for every bucket's allreduce and points each
  // .grad() at its averaged slice. Returns true when any rank voted to stop
  // (read on the host: one value per step). Every rank must call it the same
  // number of times.
  bool finish_gradients();
  // Buckets, in launch order; and how many were launched from a backward hook
  // (i.e. overlapped with backward) in the last step.
  int64_t buckets() const;
  int64_t launched_during_backward() const;
  // Rank 0 receives every rank's `mine`, in rank order; the others get {}
  // after theirs was delivered. Goes through the store.
  std::vector<std::string> gather_to_rank0(const std::string& mine);

 private:
  struct Impl;
  struct Bucket;
  void on_gradient(size_t bucket, int64_t offset, const torch::Tensor& grad);
  void launch_ready_buckets();

  Rendezvous where_;
  std::string backend_;
  std::unique_ptr<Impl> impl_;
};

// "gloo" on CPU, "nccl" on CUDA; `requested` when not empty.
std::string default_backend(const torch::Device& device, const std::string& requested);

}  // namespace milabench
