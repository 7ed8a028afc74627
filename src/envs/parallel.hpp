// Stepping several environments at once. No torch.
#pragma once
#include <functional>

namespace milabench {

// Runs fn(i) for every i in [0, n), split in contiguous chunks over `threads`
// threads (the caller runs the first chunk; threads <= 1 runs sequentially).
// The first exception thrown by any fn(i) is rethrown after all threads end.
void parallel_for(int n, int threads, const std::function<void(int)>& fn);

}  // namespace milabench
