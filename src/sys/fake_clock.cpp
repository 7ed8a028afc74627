#include "sys/fake_clock.hpp"

#include <chrono>
#include <thread>

namespace milabench {

namespace {
constexpr auto kPause = std::chrono::milliseconds(1);  // real pause of one wait pass
}

double FakeClock::now() {
  std::lock_guard<std::mutex> g(mu_);
  return now_;
}

void FakeClock::sleep_for(double) {
  {
    std::lock_guard<std::mutex> g(mu_);
    ++waits_;
  }
  changed_.notify_all();
  std::this_thread::sleep_for(kPause);
}

bool FakeClock::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, double deadline,
                           const std::function<bool()>& done) {
  for (;;) {
    if (done()) return true;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (now_ >= deadline) return false;
      ++waits_;
    }
    changed_.notify_all();
    cv.wait_for(lock, kPause);
  }
}

void FakeClock::advance(double seconds) {
  std::lock_guard<std::mutex> g(mu_);
  if (seconds > 0) now_ += seconds;
}

std::uint64_t FakeClock::waits() {
  std::lock_guard<std::mutex> g(mu_);
  return waits_;
}

void FakeClock::settle(const std::function<bool()>& give_up) {
  const std::uint64_t target = waits() + 2;
  while (!give_up()) {
    std::unique_lock<std::mutex> lock(mu_);
    if (waits_ >= target) return;
    changed_.wait_for(lock, kPause);
  }
}

}  // namespace milabench
