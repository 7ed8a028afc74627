// DataParallelRun: one rank's part in a data-parallel training run, the one
// code path of every workload that trains over ranks (scaling, and the 2026
// transformers with --devices N or on Slurm): where the rank meets the
// others (flags, else the launcher's environment), which device it trains
// on, the gradient group (training/data_parallel.hpp), the stop vote read
// only on agreed check steps (measure/stop_schedule.hpp), and rank 0's
// result carrying every rank's timings (the original's sub-job merge).
//
// A step, in the loop's order:
//   s.begin(); run.before_backward(); forward; backward;
//   if (run.after_backward()) break;   // every rank leaves now (not counted)
//   optimizer step;
//   if (!run.go_on(s.step(n))) break;
// then run.finish() once. Without a group (a world of one that does not
// attach alone) before_backward drops the gradients, after_backward never
// leaves and go_on is the meter's own answer: the plain loop.
#pragma once
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launch/rendezvous.hpp"
#include "measure/stop_schedule.hpp"
#include "training/data_parallel.hpp"

namespace milabench {

class Session;

// The rendezvous and group flags (the original scaling's --rank,
// --world-size, --dist-backend, --dist-url; --dist-timeout is ours).
struct RankFlags {
  int rank = -1, world_size = -1;
  std::string dist_url;  // tcp://HOST:PORT
  std::string backend;   // empty: nccl on CUDA, gloo on CPU
  double timeout_s = 600;

  void add_options(CLI::App& app);
  // The flags over the launcher's environment (launch/rendezvous.hpp).
  // Throws std::runtime_error "WORKLOAD: ..." naming the flag to fix.
  Rendezvous resolve(const std::string& workload) const;
};

struct DataParallelOptions {
  // Form a process group (and all-reduce) even in a world of one rank (the
  // original scaling's --distributed-dataparallel).
  bool group_when_alone = false;
  // Keep the bucket copies in a world of one rank without a group (scaling
  // does the same work at every size); otherwise such a rank trains plainly.
  bool attach_when_alone = false;
  // The CUDA device of this rank when several are visible: this id, else
  // the local rank (modulo the visible count).
  std::optional<int> device_id;
};

class DataParallelRun {
 public:
  // Resolves the rendezvous, binds this rank's device (CUDA when the session
  // trains on CUDA) and forms the group. Throws std::runtime_error naming
  // the flag, the backend or the address when it cannot.
  DataParallelRun(Session& s, const RankFlags& flags, const std::string& workload,
                  const DataParallelOptions& options = {});
  ~DataParallelRun();

  torch::Device device() const { return device_; }
  const Rendezvous& where() const { return where_; }
  const std::string& backend() const { return backend_; }
  // Whether gradients go through the group's buckets (attach() was kept).
  bool active() const { return active_; }
  bool grouped() const { return group_->grouped(); }
  int64_t buckets() const { return group_->buckets(); }

  // In a world of several ranks, reseeds torch's default generators with
  // `seed` + rank, so each rank draws its own data from there on; a world of
  // one keeps the harness's stream (its results stay as they were).
  void seed_rank_data(int64_t seed) const;

  // Broadcasts rank 0's values and hooks the gradients (when active); call
  // once after the parameters are on device(). `count_per_step`: examples
  // this rank counts per step (the stop schedule's unit).
  void attach(const std::vector<torch::Tensor>& params, int64_t count_per_step);
  void before_backward();
  // True when this step's vote says every rank leaves now.
  bool after_backward();
  // `meter_goes_on`: the session's step() answer. Whether the loop goes on
  // (in a group: until the vote says stop).
  bool go_on(bool meter_goes_on);
  // Records the metrics (world_size, gradient_buckets, stop_vote_reads,
  // buckets_overlapped_with_backward) and, when `record_alone` or in a world
  // of several ranks, the "distributed" block and rank 0's train_0, train_1,
  // ... timings (the other ranks' results become sub-jobs).
  void finish(bool record_alone);

 private:
  Session& s_;
  Rendezvous where_;
  std::string backend_;
  torch::Device device_;
  std::unique_ptr<DataParallelGroup> group_;
  std::optional<StopSchedule> schedule_;
  std::vector<torch::Tensor> params_;
  bool active_ = false, check_ = false, done_ = false;
  int64_t step_ = 0, vote_reads_ = 0, count_per_step_ = 1;
};

}  // namespace milabench
