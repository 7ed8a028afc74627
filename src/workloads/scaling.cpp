// scaling: the original's milarun.models.scaling (its micro_bench) — a
// torchvision network (--network, only alexnet here) trained on one fixed
// synthetic batch (randn images, every target class 0, as the original) with
// cross-entropy and SGD(lr 0.01, momentum 0.9), data-parallel over the ranks
// of the rendezvous (launch/rendezvous.hpp) as DistributedDataParallel does
// it: bucketed gradient allreduce started from backward hooks, overlapped
// with the rest of backward (workloads/data_parallel.hpp; Gloo on CPU, NCCL
// on CUDA). Counts --batch-size images of this rank per step; no per-step
// host read of the loss (the original logs only world_size).
// Every rank measures itself; rank 0 gathers the ranks' timings and writes
// the group's result with train_0, train_1, ... (the original's sub-job
// merge); the other ranks' results are marked "subjob".
#include <fmt/format.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <optional>
#include <stdexcept>

#include "launch/rendezvous.hpp"
#include "models/alexnet.hpp"
#include "workloads/data_parallel.hpp"
#include "workloads/mixed_precision.hpp"
#include "workloads/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

// The rendezvous the original took from flags, else the launcher's environment.
struct RendezvousFlags {
  int rank = -1, world_size = -1;
  std::string dist_url;  // tcp://HOST:PORT

  Rendezvous resolve() const {
    Rendezvous r = rendezvous_from_env();
    if ((rank >= 0) != (world_size >= 0))
      throw std::runtime_error("scaling: give --rank and --world-size together (or neither, to use the environment)");
    if (world_size >= 0) {
      if (world_size < 1 || rank >= world_size)
        throw std::runtime_error(fmt::format("scaling: --rank {} is not in [0, --world-size {})", rank, world_size));
      r.rank = rank, r.world_size = world_size, r.local_rank = rank, r.source = "flags";
    }
    if (!dist_url.empty()) {
      const std::string scheme = "tcp://";
      auto colon = dist_url.rfind(':');
      if (dist_url.rfind(scheme, 0) != 0 || colon == std::string::npos || colon < scheme.size())
        throw std::runtime_error(fmt::format("scaling: --dist-url \"{}\" is not tcp://HOST:PORT", dist_url));
      r.master_addr = dist_url.substr(scheme.size(), colon - scheme.size());
      try {
        r.master_port = std::stoi(dist_url.substr(colon + 1));
      } catch (const std::exception&) {
        throw std::runtime_error(fmt::format("scaling: --dist-url \"{}\" has no numeric port", dist_url));
      }
    }
    return r;
  }
};

class ScalingWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--network", network_, "network to train (this build: alexnet)")->capture_default_str();
    app.add_option("--batch-size", batch_size_, "images per step on each rank")->capture_default_str();
    app.add_option("--fp16", fp16_, "1: float16 autocast on CUDA, bfloat16 autocast on CPU")->capture_default_str();
    app.add_flag("--dataparallel", dataparallel_, "the original's single-process DataParallel (not supported)");
    app.add_flag("--distributed-dataparallel", ddp_,
                 "ranks always train data-parallel; with this flag a single rank still forms a process group");
    app.add_option("--device-ids", device_ids_, "CUDA device of this rank (first id)");
    app.add_option("--rank", flags_.rank, "rank (default: RANK or SLURM_PROCID)");
    app.add_option("--world-size", flags_.world_size, "ranks (default: WORLD_SIZE or SLURM_NTASKS, else 1)");
    app.add_option("--dist-backend", backend_, "gloo or nccl (default: nccl on CUDA, gloo on CPU)");
    app.add_option("--dist-url", flags_.dist_url, "tcp://HOST:PORT of rank 0 (default: MASTER_ADDR/MASTER_PORT)");
    app.add_option("--dist-timeout", timeout_s_, "seconds to wait for the other ranks (ours)")->capture_default_str();
    app.add_option("--image-size", image_size_, "input side (ours; 224 as the original, smaller for CPU tests)")
        ->capture_default_str();
  }

  void run(Session& s) override {
    if (network_ != "alexnet")
      throw std::runtime_error(fmt::format("scaling: --network {} is not built; this build has alexnet", network_));
    if (dataparallel_)
      throw std::runtime_error(
          "scaling: --dataparallel (one process, several GPUs) is not supported; ranks are "
          "processes started by `milarun jobs` or srun");
    if (batch_size_ < 1 || image_size_ < 63)
      throw std::runtime_error("scaling: --batch-size must be >= 1 and --image-size >= 63 (AlexNet's smallest input)");
    const Rendezvous where = flags_.resolve();
    torch::Device dev = s.device();
    if (dev.is_cuda()) {
      int count = static_cast<int>(torch::cuda::device_count());
      int index = device_ids_.empty() ? where.local_rank : std::stoi(device_ids_.substr(0, device_ids_.find(',')));
      dev = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(count > 1 ? index % count : 0));
    }
    const std::string backend = default_backend(dev, backend_);
    DataParallelGroup group(where, backend, std::chrono::milliseconds(static_cast<int64_t>(timeout_s_ * 1000)),
                            /*group_when_alone=*/ddp_, dev);

    AlexNet model;
    model->to(dev);
    model->train();
    s.set_model(*model);
    group.attach(model->parameters());
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
    const bool autocast = fp16_ != 0;
    s.set_metric("precision", !autocast ? "float32" : dev.is_cuda() ? "float16-autocast" : "bfloat16-autocast");
    torch::Tensor images = torch::randn({batch_size_, 3, image_size_, image_size_}, torch::TensorOptions(dev));
    torch::Tensor targets = torch::zeros({batch_size_}, torch::TensorOptions(dev).dtype(torch::kLong));

    s.set_metric("world_size", where.world_size);
    s.set_metric("gradient_buckets", group.buckets());
    // Alone, the meter ends the run; in a group, rank 0's meter does, through
    // the vote read on the schedule's check steps only.
    StopSchedule schedule = s.stop_schedule(batch_size_);
    int64_t vote_reads = 0;
    bool done = false;
    for (int64_t step = 1; !(done && !group.grouped()); ++step) {
      s.begin();  // with wrapper(count=batch_size): zero_grad, forward, backward, step
      const bool check = group.grouped() && schedule.is_check(step);
      group.zero_grad(check ? StopSchedule::vote(where.rank == 0, done, s.steps_per_slice(batch_size_)) : 0.0f);
      torch::Tensor loss;
      {
        AutocastScope scope(dev.type(), dev.is_cuda() ? torch::kFloat16 : torch::kBFloat16, autocast);
        loss = torch::cross_entropy_loss(model->forward(images), targets);
      }
      loss.backward();
      group.finish_gradients();
      if (check) {
        ++vote_reads;
        if (schedule.leave(group.read_vote(), step)) break;  // all ranks leave; this step is not counted
      }
      opt.step();
      done = !s.step(batch_size_);
    }
    s.set_metric("stop_vote_reads", vote_reads);
    s.set_metric("buckets_overlapped_with_backward", group.launched_during_backward());

    nlohmann::json mine = s.finish_meter();
    std::vector<std::string> all = group.gather_to_rank0(mine.dump());
    nlohmann::json info = {{"rank", where.rank},
                           {"world_size", where.world_size},
                           {"local_rank", where.local_rank},
                           {"backend", backend},
                           {"collectives", group.describe_backend()},
                           {"rendezvous", where.source},
                           {"master", fmt::format("{}:{}", where.master_addr, where.master_port)}};
    s.set_distributed(info, where.rank == 0);
    if (where.rank != 0) return;
    nlohmann::json timings = nlohmann::json::object();
    for (std::size_t r = 0; r < all.size(); ++r) timings[fmt::format("train_{}", r)] = nlohmann::json::parse(all[r]);
    s.set_timings(timings);
  }

 private:
  std::string network_ = "alexnet";
  int64_t batch_size_ = 64;
  int fp16_ = 0;
  bool dataparallel_ = false, ddp_ = false;
  std::string device_ids_, backend_;
  RendezvousFlags flags_;
  double timeout_s_ = 600;
  int64_t image_size_ = 224;
};

}  // namespace

std::unique_ptr<Workload> make_scaling() { return std::make_unique<ScalingWorkload>(); }

}  // namespace milabench
