#include "sys/clock.hpp"

#include <chrono>
#include <thread>

namespace milabench {

namespace {

using Steady = std::chrono::steady_clock;

class SteadyClock final : public Clock {
 public:
  double now() override { return std::chrono::duration<double>(Steady::now().time_since_epoch()).count(); }

  void sleep_for(double seconds) override {
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }

  bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, double deadline,
                  const std::function<bool()>& done) override {
    auto at = Steady::time_point(std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(deadline)));
    return cv.wait_until(lock, at, done);
  }
};

}  // namespace

Clock& steady_clock() {
  static SteadyClock clock;
  return clock;
}

}  // namespace milabench
