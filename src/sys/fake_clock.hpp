#pragma once
// A Clock for tests: time stands still until the test calls advance().
// Waits on it still return after a short real pause (about a millisecond)
// without moving its time, so a caller that polls for other events (a child
// that exits, a stop request) sees them while the test holds time still.
// Every wait is counted, so a test can tell when the waiting thread has
// looked at the clock again after an advance (settle()).
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "sys/clock.hpp"

namespace milabench {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(double start_s = 0.0) : now_(start_s) {}

  double now() override;
  void sleep_for(double seconds) override;
  bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, double deadline,
                  const std::function<bool()>& done) override;

  // Moves time on by `seconds` (>= 0).
  void advance(double seconds);

  // Number of sleep_for / wait_until passes so far (each reads the time once).
  std::uint64_t waits();

  // Blocks until two more waits have begun since the call, or `give_up()`
  // holds: for one thread polling this clock, the second wait comes after a
  // whole pass of its loop that saw the time as it is now. `give_up` is for
  // a caller whose waiter may have ended (its future is ready).
  void settle(const std::function<bool()>& give_up = [] { return false; });

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  double now_;
  std::uint64_t waits_ = 0;
};

}  // namespace milabench
