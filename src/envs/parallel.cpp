#include "envs/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace milabench {

void parallel_for(int n, int threads, const std::function<void(int)>& fn) {
  threads = std::max(1, std::min(threads, n));
  if (threads == 1) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  std::exception_ptr error;
  std::mutex mu;
  auto chunk = [&](int t) {
    try {
      for (int i = t * n / threads; i < (t + 1) * n / threads; ++i) fn(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(chunk, t);
  chunk(0);
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace milabench
