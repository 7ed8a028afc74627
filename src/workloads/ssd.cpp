// ssd: the original's milarun.models.ssd:main - SSD300 with a ResNet-34
// backbone (models/ssd300.hpp) trained on COCO train2017 with the SSD loss
// (models/ssd_loss.hpp) and SGD (lr 1e-3, momentum 0.9, weight decay 5e-4,
// fixed as the original). Counts images. The input pipeline (random crop,
// flip, resize to 300, colour jitter, normalisation, box matching) runs on
// --workers loader threads (workloads/ssd_input.hpp).
#include <torch/torch.h>

#include <stdexcept>

#include "models/ssd300.hpp"
#include "models/ssd_loss.hpp"
#include "workloads/session.hpp"
#include "workloads/ssd_input.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class SsdWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--dataset", dataset_, "detection dataset (milarun.datasets:coco)")->capture_default_str();
    app.add_option("--batch-size", batch_size_, "images per batch")->capture_default_str();
    app.add_option("--checkpoint", checkpoint_, "path to a model checkpoint (the original's; not supported here)");
  }

  void run(Session& s) override {
    if (!checkpoint_.empty())
      throw std::invalid_argument("--checkpoint " + checkpoint_ +
                                  ": loading the original's PyTorch checkpoint is not supported; omit the flag");
    const torch::Device dev = s.device();
    SsdInput input(s, dataset_, batch_size_, s.workers() > 0 ? s.workers() : workers_);
    Ssd300 model(input.labels());
    SsdLoss loss_fn(ssd300_default_boxes());
    if (dev.is_cuda()) at::globalContext().setBenchmarkCuDNN(true);  // as the original
    model->to(dev);
    loss_fn->to(dev);
    s.set_model(*model);
    model->train();
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(1e-3).momentum(0.9).weight_decay(5e-4));

    while (true) {
      SsdBatch b = input.next();
      auto [ploc, plabel] = model->forward(b.images);
      torch::Tensor loss = loss_fn->forward(ploc, plabel, b.gloc, b.glabel);
      opt.zero_grad();
      loss.backward();
      opt.step();
      if (!s.step(b.images.size(0), loss)) return;
    }
  }

 private:
  std::string dataset_ = "milarun.datasets:coco";
  int64_t batch_size_ = 32;
  std::string checkpoint_;
  int workers_ = 8;
};

}  // namespace

std::unique_ptr<Workload> make_ssd() { return std::make_unique<SsdWorkload>(); }

}  // namespace milabench
