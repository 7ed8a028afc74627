#include "run/torch_init.hpp"

#include <torch/cuda.h>

namespace milabench {

TorchSettings init_torch(const TorchArgs& a) {
  TorchSettings s;
  torch::manual_seed(static_cast<uint64_t>(a.seed));
  torch::set_num_threads(a.workers > 0 ? a.workers : 1);
  const bool available = torch::cuda::is_available();
  s.cuda = !a.no_cuda && available;
  if (a.cuda && !a.no_cuda && !available) s.warning = "--cuda given but no CUDA device is visible; training on the CPU";
  if (s.cuda) {
    torch::cuda::manual_seed_all(static_cast<uint64_t>(a.seed));
    s.device = torch::Device(torch::kCUDA, 0);
    s.sync = [] { torch::cuda::synchronize(); };
  }
  return s;
}

}  // namespace milabench
