// convnet: the original's milarun.models.convnet:conv_simple — a torchvision
// ResNet (--arch, default resnet18) trained on fake_imagenet with
// CrossEntropy and plain SGD (lr only, as the original; --momentum and
// --weight-decay default to 0). As the original's loop: each timed block
// fetches a batch, trains on it, reads the loss (loss.item() every step) and
// counts --batch-size; no sync at slice ends (sync=None). --half
// (convnet_fp16): on CUDA the original's OptimizerAdapter/ModelAdapter over
// apex, in its order: SGD built over the float32 parameters, then the model
// halved in place (BatchNorm stays float32), so apex kept no master weights
// and SGD steps the float16 weights; apex's dynamic loss scale
// (training/mixed_precision.hpp, docs/fidelity.md). On CPU bfloat16 autocast.
#include <torch/torch.h>

#include <optional>
#include <stdexcept>

#include "models/resnet.hpp"
#include "training/image_input.hpp"
#include "training/mixed_precision.hpp"
#include "training/session.hpp"
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
    const std::vector<torch::Tensor> params = model->parameters();
    // conv_simple.py:60-68: the optimizer over the float32 parameters first,
    // then ModelAdapter's network_to_half converts those same tensors.
    torch::optim::SGD opt(params, torch::optim::SGDOptions(lr_).momentum(momentum_).weight_decay(weight_decay_));
    std::optional<LossScaler> scaler;
    if (fp16) {
      model_to_half_keep_batchnorm(*model);
      scaler.emplace(LossScalePolicy::apex_dynamic());
    }
    s.set_metric("precision", fp16 ? "float16" : bf16 ? "bfloat16-autocast" : "float32");
    // What SGD steps (its first tensor, the first convolution's weight): float16 under --half on CUDA.
    s.set_metric("optimizer_weights",
                 opt.param_groups()[0].params()[0].scalar_type() == torch::kFloat16 ? "float16" : "float32");
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
        apex_fp16_step(opt, *scaler, params, loss);  // reads each gradient's sum until an overflow
        s.set_metric("loss_scale", scaler->state().scale());
        s.set_metric("skipped_steps", scaler->state().skipped_steps());
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
