// CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, NVML
// by PCI bus. On a machine with two kinds of GPU the run on CUDA device 0
// would have been named, monitored, metered and placed as NVML's GPU 0,
// another GPU. milarun pins the order where it is unset, and maps no number
// when a user set another one (docs/reliability.md).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "devices/gpu_ids.hpp"
#include "devices/nvml.hpp"
#include "monitor_fakes.hpp"

using namespace milabench;

namespace {

// Runs `f` with CUDA_DEVICE_ORDER set to `order` (nullptr: unset), then restores it.
template <class F>
void with_order(const char* order, F f) {
  const char* was = std::getenv("CUDA_DEVICE_ORDER");
  const std::string saved = was ? was : "";
  if (order)
    ::setenv("CUDA_DEVICE_ORDER", order, 1);
  else
    ::unsetenv("CUDA_DEVICE_ORDER");
  f();
  if (was)
    ::setenv("CUDA_DEVICE_ORDER", saved.c_str(), 1);
  else
    ::unsetenv("CUDA_DEVICE_ORDER");
}

}  // namespace

TEST(GpuOrder, AnUnsetOrderIsPinnedToNvmlsAndAnotherIsNamedInAWarning) {
  with_order(nullptr, [] {
    EXPECT_EQ(pin_cuda_device_order(), "");
    ASSERT_NE(std::getenv("CUDA_DEVICE_ORDER"), nullptr);
    EXPECT_STREQ(std::getenv("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");  // what the runs inherit
  });
  with_order("PCI_BUS_ID", [] { EXPECT_EQ(pin_cuda_device_order(), ""); });
  with_order("FASTEST_FIRST", [] {
    const std::string w = pin_cuda_device_order();
    EXPECT_EQ(w.rfind("warning: CUDA_DEVICE_ORDER=FASTEST_FIRST: CUDA numbers the GPUs in another order than NVML", 0),
              0u)
        << w;
    EXPECT_STREQ(std::getenv("CUDA_DEVICE_ORDER"), "FASTEST_FIRST");  // the user's choice stays
  });
}

TEST(GpuOrder, AGpuNumberIsMappedToNvmlOnlyWhenCudaCountsInNvmlsOrder) {
  Nvml& nvml = test::fake_nvml();
  with_order("PCI_BUS_ID", [&] { EXPECT_EQ(nvml.index_of("1"), 1); });
  with_order(nullptr, [&] { EXPECT_EQ(nvml.index_of("1"), 1); });  // milarun pins it before any run
  with_order("FASTEST_FIRST", [&] {
    EXPECT_EQ(nvml.index_of("1"), -1) << "another GPU's readings would be taken for this one's";
    EXPECT_EQ(nvml.index_of("GPU-bbbb"), 1);  // a UUID names one GPU in any order
  });
}
