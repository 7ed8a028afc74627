#pragma once
// Time as the launcher (launch/process) and the monitor (monitor/monitor)
// see it: a steady clock read in seconds, and the two ways they wait on it.
// Injected, so that tests drive time with sys/fake_clock.hpp instead of
// sleeping and bounding the wall clock.
#include <condition_variable>
#include <functional>
#include <mutex>

namespace milabench {

class Clock {
 public:
  virtual ~Clock() = default;

  // Seconds on a steady (monotonic) scale; only differences mean anything.
  virtual double now() = 0;

  // Pauses the caller for about `seconds` of this clock (a poll interval:
  // callers re-read now() after it and never count on its exact length).
  virtual void sleep_for(double seconds) = 0;

  // With `lock` (a lock on the mutex guarding `done`'s state) held on entry
  // and on return: waits, the lock released meanwhile, until `done()` holds
  // (returns true) or now() reaches `deadline` (returns false). A thread that
  // makes `done()` true does so under the lock and then notifies `cv`.
  virtual bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, double deadline,
                          const std::function<bool()>& done) = 0;
};

// std::chrono::steady_clock; one object, shared, thread-safe.
Clock& steady_clock();

}  // namespace milabench
