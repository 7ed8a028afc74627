// convnet: the original's milarun.models.convnet:conv_simple — a torchvision
// ResNet (--arch, default resnet18) trained on fake_imagenet with
// CrossEntropy and plain SGD (lr only, as the original; --momentum and
// --weight-decay default to 0). As the original's loop: each timed block
// fetches a batch, trains on it, reads the loss (loss.item() every step) and
// counts --batch-size; no sync at slice ends (sync=None). --half
// (convnet_fp16): on CUDA the original's ModelAdapter/OptimizerAdapter over
// apex — float16 model with float32 BatchNorm, float32 master weights,
// dynamic loss scaling (workloads/mixed_precision.hpp); on CPU bfloat16
// autocast.
#include <torch/torch.h>

#include <optional>
#include <stdexcept>

#include "models/resnet.hpp"
#include "workloads/image_input.hpp"
#include "workloads/mixed_precision.hpp"
#include "workloads/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

constexpr int64_t kClasses = 1000;

class ConvnetWorkload : public Workload {
 public:
  ConvnetWorkload() { input_.batch_size = 128; }

  void add_options(CLI::App& app) override {
    add_image_input_options(app, input_);
    app.add_option("--arch", arch_, "resnet18, resnet34, resnet50, resnet101 or resnet152")->capture_default_str();
    app.add_option("--lr", lr_, "SGD learning rate")->capture_default_str();
    app.add_option("--momentum", momentum_, "SGD momentum (the original: none)")->capture_default_str();
    app.add_option("--weight-decay", weight_decay_, "SGD weight decay (the original: none)")->capture_default_str();
    app.add_flag("--half", half_, "float16 on CUDA (loss scaling), bfloat16 autocast on CPU");
  }

  void run(Session& s) override {
    const torch::Device dev = s.device();
    ResNet model(arch_, kClasses);  // throws on an unknown --arch before any data is read
    ImageInput input(s, input_);
    if (input.classes() > kClasses)
      throw std::runtime_error("convnet: the dataset has " + std::to_string(input.classes()) + " classes, the model " +
                               std::to_string(kClasses));
    if (dev.is_cuda()) at::globalContext().setBenchmarkCuDNN(true);  // as the original
    model->to(dev);
    s.set_model(*model);
    model->train();

    const bool fp16 = half_ && dev.is_cuda(), bf16 = half_ && !dev.is_cuda();
    std::optional<Fp16MasterWeights> masters;
    if (fp16) {
      model_to_half_keep_batchnorm(*model);
      masters.emplace(model->parameters(), LossScalePolicy::apex_dynamic());
    }
    auto sgd = torch::optim::SGDOptions(lr_).momentum(momentum_).weight_decay(weight_decay_);
    torch::optim::SGD opt(fp16 ? masters->master_params() : model->parameters(), sgd);
    s.set_metric("precision", fp16 ? "float16" : bf16 ? "bfloat16-autocast" : "float32");
    s.set_slice_sync(false);  // iteration_wrapper(exp, sync=None)

    while (true) {
      s.begin();
      auto [images, labels] = input.next();
      if (fp16) images = images.to(torch::kFloat16);
      torch::Tensor loss;
      {
        AutocastScope autocast(torch::kCPU, torch::kBFloat16, bf16);
        loss = torch::cross_entropy_loss(model->forward(images), labels);
      }
      s.set_metric("loss", loss.item<double>());  // it.log(loss=loss.item()), every step
      if (fp16) {
        masters->backward(loss);
        if (masters->unscale()) {  // one read: the overflow check
          opt.step();
          masters->copy_to_model();
        }
        s.set_metric("loss_scale", masters->loss_scale().scale());
        s.set_metric("skipped_steps", masters->loss_scale().skipped_steps());
      } else {
        opt.zero_grad();
        loss.backward();
        opt.step();
      }
      if (!s.step(input_.batch_size, loss)) return;
    }
  }

 private:
  ImageInputOptions input_;
  std::string arch_ = "resnet18";
  double lr_ = 0.1, momentum_ = 0.0, weight_decay_ = 0.0;
  bool half_ = false;
};

}  // namespace

std::unique_ptr<Workload> make_convnet() { return std::make_unique<ConvnetWorkload>(); }

}  // namespace milabench
