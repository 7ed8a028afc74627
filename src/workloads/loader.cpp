// loader: the original's milarun.models.loader — images/second delivered to
// the device by the input pipeline alone (fake_imagenet train split,
// RandomResizedCrop(224) + flip + normalise on full-resolution decodes,
// --workers loader threads, batches copied to the device). As the original:
// one warm-up batch before the timed loop; each timed block fetches a batch
// and copies it (a device sync every step on CUDA, none at slice ends:
// iteration_wrapper(exp, sync=None)); counts --batch-size per step, also for
// an epoch's short last batch.
#include <torch/cuda.h>
#include <torch/torch.h>

#include "training/image_input.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

class LoaderWorkload : public Workload {
 public:
  void add_options(CLI::App& app) override { add_image_input_options(app, input_); }

  void run(Session& s) override {
    ImageInput input(s, input_);
    s.set_model_parameters(0);  // no model: the loader alone is measured
    s.set_slice_sync(false);
    const bool cuda = s.device().is_cuda();
    input.next();  // warm-up batch, not timed
    while (true) {
      s.begin();
      auto batch = input.next();
      if (cuda) torch::cuda::synchronize();
      if (!s.step(input_.batch_size)) return;
    }
  }

 private:
  ImageInputOptions input_;  // original defaults: --batch-size 256; --workers as the profiles (8)
};

}  // namespace

std::unique_ptr<Workload> make_loader() { return std::make_unique<LoaderWorkload>(); }

}  // namespace milabench
