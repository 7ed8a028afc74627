// loader: the original's milarun.models.loader — images/second delivered to
// the device by the input pipeline alone (fake_imagenet train split,
// RandomResizedCrop(224) + flip + normalise, --workers threads, batches copied
// to the device). Counts images. One batch is loaded before the meter counts,
// as the original's warm-up.
#include <torch/torch.h>

#include "workloads/image_input.hpp"
#include "workloads/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class LoaderWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override { add_image_input_options(app, input_); }

  void run(Session& s) override {
    ImageInput input(s, input_);
    s.set_model_parameters(0);  // no model: the loader alone is measured
    input.next();               // warm-up batch, not counted
    while (true) {
      auto [images, labels] = input.next();
      if (!s.step(images.size(0))) return;
    }
  }

 private:
  ImageInputOptions input_;  // original defaults: --batch-size 256; --workers as the profiles (8)
};

}  // namespace

std::unique_ptr<Workload> make_loader() { return std::make_unique<LoaderWorkload>(); }

}  // namespace milabench
