// DataParallelGroup: the ranks of one data-parallel training run, met
// through c10d (a TCPStore hosted by rank 0, then ProcessGroupGloo on CPU or
// ProcessGroupNCCL on CUDA). The c10d headers stay in data_parallel.cpp.
//
// The work of torch 1.5's DistributedDataParallel, as the original's scaling
// workload used it (docs/fidelity.md, "scaling"): parameters assigned to
// buckets in definition order (the first bucket closes at 1 MiB, the others
// at 25 MiB, a bucket closing once it holds at least its cap), the bucket
// list then reversed, so the buckets of the last-defined parameters, whose
// gradients come first in backward, are reduced first. During backward a hook
// on each parameter copies its gradient, divided by the world size, into its
// bucket, and a bucket whose gradients are all in starts its asynchronous
// allreduce at once (in bucket order, as DDP's reducer) while backward goes
// on. After backward the group waits for the reductions and each .grad() is
// a view of its averaged bucket (DDP's gradient_as_bucket_view, without the
// copy back). A world of one rank does the same copies without the
// allreduce. The last bucket carries one extra float, the stop vote, summed
// over the ranks; it is read back only when asked (measure/stop_schedule.hpp
// says when), never every step.
#pragma once
#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launch/rendezvous.hpp"

namespace milabench {

class DataParallelGroup {
 public:
  // world_size 1: no store, no process group; every call is local, unless
  // `group_when_alone` (the original's --distributed-dataparallel with one
  // rank still formed a process group and all-reduced). Otherwise connects
  // (rank 0 listens on master_addr:master_port) and waits up to `timeout` for
  // the others. backend: "gloo" (a build whose libtorch ships Gloo headers)
  // or "nccl" (a CUDA libtorch; `device` is this rank's GPU, made current
  // before the group forms). Throws std::runtime_error with one line naming
  // the backend, the address or the build when it cannot.
  DataParallelGroup(const Rendezvous& where, const std::string& backend, std::chrono::milliseconds timeout,
                    bool group_when_alone = false, torch::Device device = torch::Device(torch::kCPU));
  // Shuts the process group down (NCCL's communicators) before the store.
  ~DataParallelGroup();
  DataParallelGroup(const DataParallelGroup&) = delete;
  DataParallelGroup& operator=(const DataParallelGroup&) = delete;

  // Whether this build can form a group over `backend` ("gloo": its libtorch
  // ships Gloo headers; "nccl": a CUDA libtorch with NCCL).
  static bool backend_available(const std::string& backend);

  int rank() const { return where_.rank; }
  int world_size() const { return where_.world_size; }
  const std::string& backend() const { return backend_; }
  // True when a process group exists (the votes travel; see read_vote).
  bool grouped() const;

  // Copies rank 0's values of `params` to every rank (as DDP's constructor),
  // builds the buckets (float32, on the parameters' device) and registers the
  // gradient hooks. Call once, before the first backward; `params` must each
  // receive one gradient per backward (no shared or unused parameters).
  void attach(const std::vector<torch::Tensor>& params, int64_t first_bucket_bytes = int64_t(1) << 20,
              int64_t bucket_bytes = int64_t(25) << 20);
  // Before each backward: drops the gradients (the hooks refill the buckets)
  // and sets this rank's vote (summed over the ranks by this step's last
  // all-reduce).
  void zero_grad(float vote = 0.0f);
  // After backward: waits for every bucket's allreduce and points each
  // .grad() at its averaged slice. No host read. Every rank must call it the
  // same number of times.
  void finish_gradients();
  // The votes of this step, summed over the ranks (this rank's own vote
  // without a group). A host read: a device sync on CUDA. Call it on the same
  // steps on every rank, after finish_gradients().
  float read_vote();
  // Buckets, in launch order, as indices into attach()'s `params`; how many
  // were launched from a backward hook (overlapped with backward) in the
  // last step.
  std::vector<std::vector<int64_t>> bucket_params() const;
  int64_t buckets() const;
  int64_t launched_during_backward() const;
  // Rank 0 receives every rank's `mine`, in rank order; the others get {}
  // after theirs was delivered. Goes through the store.
  std::vector<std::string> gather_to_rank0(const std::string& mine);
  // What the result records of the collective library: {"backend", and for
  // NCCL "nccl_header" (the nccl.h this file was built with) and
  // "nccl_torch" (the one libtorch was built with)}.
  nlohmann::json describe_backend() const;

 private:
  struct Impl;
  struct Bucket;
  void on_gradient(size_t bucket, int64_t offset, const torch::Tensor& grad);
  void launch_ready_buckets();

  Rendezvous where_;
  std::string backend_;
  std::unique_ptr<Impl> impl_;
};

// torch 1.5's bucket assignment (reducer.cpp compute_bucket_assignment_by_size
// with DDP's [1 MiB, bucket_bytes] limits), then reversed as DDP does:
// `bytes[i]` is parameter i's gradient size in definition order; returns the
// buckets in launch order. Torch-free arithmetic, exposed for tests.
std::vector<std::vector<int64_t>> ddp15_bucket_assignment(const std::vector<int64_t>& bytes, int64_t first_bucket_bytes,
                                                          int64_t bucket_bytes);

// "gloo" on CPU, "nccl" on CUDA; `requested` when not empty.
std::string default_backend(const torch::Device& device, const std::string& requested);

}  // namespace milabench
