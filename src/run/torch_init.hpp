// The original's init_torch (milarun/lib/helpers.py): seeds, torch's
// intra-op threads, the device and its sync, for every workload.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <string>

namespace milabench {

// The common arguments every workload accepts (the harness registers them).
struct TorchArgs {
  int64_t seed = 1234;   // --seed
  bool cuda = false;     // --cuda: train on the GPU
  bool no_cuda = false;  // --no-cuda: train on the CPU; neither: the GPU when one is visible
  int workers = 0;       // --workers; 0 = not given (the original's None)
};

struct TorchSettings {
  torch::Device device = torch::Device(torch::kCPU);
  bool cuda = false;
  std::function<void()> sync;  // empty on the CPU (the original's sync=None)
  std::string warning;         // e.g. --cuda without a visible GPU ("" when none)
};

// Seeds torch's generators (and CUDA's), sets torch's intra-op threads to
// --workers or 1, picks the device. Throws what libtorch throws (called
// inside the run boundary's try).
TorchSettings init_torch(const TorchArgs& args);

}  // namespace milabench
