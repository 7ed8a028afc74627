// ssd: the original's milarun.models.ssd:main - SSD300 with a ResNet-34
// backbone (models/ssd300.hpp) trained on COCO train2017 with the SSD loss
// (models/ssd_loss.hpp) and SGD (lr 1e-3, momentum 0.9, weight decay 5e-4,
// fixed as the original). The input pipeline (full-resolution decode, random
// crop, flip, resize to 300, colour jitter, normalisation, box matching) runs
// on 4 loader threads, the original's DataLoader(num_workers=4) whatever
// --workers says (training/ssd_input.hpp); torch's threads are --workers or
// 1 (the profile gives none: 1). As the original's loop, each timed block
// fetches a batch, makes the images require gradients (backward also computes
// the input's gradient), trains, reads the loss three times (loss.item() in
// the inf check, the running average and the log) and counts --batch-size;
// device sync at slice ends.
#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

#include "models/ssd300.hpp"
#include "models/ssd_loss.hpp"
#include "training/image_input.hpp"
#include "training/session.hpp"
#include "training/ssd_input.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class SsdWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--dataset", dataset_, "detection dataset (milarun.datasets:coco)")->capture_default_str();
    app.add_option("--batch-size", batch_size_, "images per batch")->capture_default_str();
    app.add_option("--checkpoint", checkpoint_, "path to a model checkpoint (the original's; not supported here)");
    add_reduced_decode_flag(app, reduced_decode_);
  }

  void run(Session& s) override {
    if (!checkpoint_.empty())
      throw std::invalid_argument("--checkpoint " + checkpoint_ +
                                  ": loading the original's PyTorch checkpoint is not supported; omit the flag");
    const torch::Device dev = s.device();
    SsdInput input(s, dataset_, batch_size_, kLoaderWorkers, reduced_decode_ ? Decode::reduced : Decode::full);
    s.set_metric("loader_workers", kLoaderWorkers);
    s.set_metric("input_requires_grad", true);
    Ssd300 model(input.labels());
    SsdLoss loss_fn(ssd300_default_boxes());
    if (dev.is_cuda()) at::globalContext().setBenchmarkCuDNN(true);  // as the original
    model->to(dev);
    loss_fn->to(dev);
    s.set_model(*model);
    model->train();
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(1e-3).momentum(0.9).weight_decay(5e-4));

    double avg_loss = 0;
    while (true) {
      s.begin();
      SsdBatch b = input.next();
      b.images.requires_grad_(true);  // Variable(img, requires_grad=True)
      auto [ploc, plabel] = model->forward(b.images);
      torch::Tensor loss = loss_fn->forward(ploc, plabel, b.gloc, b.glabel);
      if (!std::isinf(loss.item<double>())) avg_loss = 0.999 * avg_loss + 0.001 * loss.item<double>();
      s.set_metric("avg_loss", avg_loss);
      s.set_metric("loss", loss.item<double>());
      opt.zero_grad();
      loss.backward();
      opt.step();
      if (!s.step(batch_size_, loss)) return;
    }
  }

 private:
  std::string dataset_ = "milarun.datasets:coco";
  int64_t batch_size_ = 32;
  std::string checkpoint_;
  bool reduced_decode_ = false;
  static constexpr int kLoaderWorkers = 4;
};

}  // namespace

std::unique_ptr<Workload> make_ssd() { return std::make_unique<SsdWorkload>(); }

}  // namespace milabench
