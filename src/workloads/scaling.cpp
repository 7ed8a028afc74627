// scaling: the original's milarun.models.scaling (its micro_bench) — a
// torchvision network (--network, only alexnet here) trained on one fixed
// synthetic batch (randn images, every target class 0, as the original) with
// cross-entropy and SGD(lr 0.01, momentum 0.9), data-parallel over the ranks
// of the rendezvous (launch/rendezvous.hpp) as DistributedDataParallel does
// it: bucketed gradient allreduce started from backward hooks, overlapped
// with the rest of backward (training/data_parallel.hpp; Gloo on CPU, NCCL
// on CUDA). Counts --batch-size images of this rank per step; no per-step
// host read of the loss (the original logs only world_size).
// Every rank measures itself; rank 0 gathers the ranks' timings and writes
// the group's result with train_0, train_1, ... (the original's sub-job
// merge); the other ranks' results are marked "subjob".
#include <fmt/format.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <stdexcept>

#include "models/alexnet.hpp"
#include "training/data_parallel_run.hpp"
#include "training/mixed_precision.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

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
    flags_.add_options(app);
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
    DataParallelOptions options;
    options.group_when_alone = ddp_;
    options.attach_when_alone = true;  // the same bucket copies at every world size
    if (!device_ids_.empty()) options.device_id = std::stoi(device_ids_.substr(0, device_ids_.find(',')));
    DataParallelRun ranks(s, flags_, "scaling", options);
    const torch::Device dev = ranks.device();

    AlexNet model;
    model->to(dev);
    model->train();
    s.set_model(*model);
    ranks.attach(model->parameters(), batch_size_);
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
    const bool autocast = fp16_ != 0;
    s.set_metric("precision", !autocast ? "float32" : dev.is_cuda() ? "float16-autocast" : "bfloat16-autocast");
    torch::Tensor images = torch::randn({batch_size_, 3, image_size_, image_size_}, torch::TensorOptions(dev));
    torch::Tensor targets = torch::zeros({batch_size_}, torch::TensorOptions(dev).dtype(torch::kLong));

    // Alone, the meter ends the run; in a group, rank 0's meter does, through
    // the vote read on the schedule's check steps only.
    while (true) {
      s.begin();  // with wrapper(count=batch_size): zero_grad, forward, backward, step
      ranks.before_backward();
      torch::Tensor loss;
      {
        AutocastScope scope(dev.type(), dev.is_cuda() ? torch::kFloat16 : torch::kBFloat16, autocast);
        loss = torch::cross_entropy_loss(model->forward(images), targets);
      }
      loss.backward();
      if (ranks.after_backward()) break;  // all ranks leave; this step is not counted
      opt.step();
      if (!ranks.go_on(s.step(batch_size_))) break;
    }
    ranks.finish(/*record_alone=*/true);
  }

 private:
  std::string network_ = "alexnet";
  int64_t batch_size_ = 64;
  int fp16_ = 0;
  bool dataparallel_ = false, ddp_ = false;
  std::string device_ids_;
  RankFlags flags_;
  int64_t image_size_ = 224;
};

}  // namespace

std::unique_ptr<Workload> make_scaling() { return std::make_unique<ScalingWorkload>(); }

}  // namespace milabench
