// run_wave on a FakeClock, in a thread of its own, so a test decides when
// time passes (advance) and waits on conditions, never on the wall clock.
#pragma once
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "launch/process.hpp"
#include "sys/fake_clock.hpp"

namespace milabench::test {

class DrivenWave {
 public:
  DrivenWave(std::vector<ProcessSpec> specs, std::string log_dir, double kill_grace_s, double group_grace_s)
      : done_(std::async(std::launch::async,
                         [=] { return run_wave(specs, log_dir, kill_grace_s, group_grace_s, clock_); })) {}

  // Moves the wave's time on, then returns once the wave has polled its
  // children at the new time (or has ended).
  void advance(double seconds) {
    clock_.advance(seconds);
    clock_.settle([this] { return finished(); });
  }
  bool finished() const { return done_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
  // Waits for the wave to end (its children to exit) and returns its results.
  std::vector<ProcessResult> results() { return done_.get(); }
  double now() { return clock_.now(); }

 private:
  FakeClock clock_;
  std::future<std::vector<ProcessResult>> done_;
};

// Waits until `path` exists: a condition a child signals, with a 60 s cap
// that only a broken test reaches (then the caller's assertion fails).
inline bool wait_for_file(const std::string& path) {
  struct stat st {};
  for (int i = 0; i < 60000; ++i) {
    if (::stat(path.c_str(), &st) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// Whether `pid` has ended: no such process, or a zombie nobody reaped yet
// (its parent may be a container's init that does not reap).
inline bool process_ended(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return true;
  auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z' || stat[close + 2] == 'X';
}

// Waits until `pid` has ended (process_ended), with the same 60 s cap.
inline bool wait_until_ended(pid_t pid) {
  for (int i = 0; i < 60000; ++i) {
    if (process_ended(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// The pid a child wrote into `path` (written whole: echo $$ > p.tmp; mv p.tmp p).
inline pid_t read_pid(const std::string& path) {
  std::ifstream in(path);
  long pid = -1;
  in >> pid;
  return static_cast<pid_t>(pid);
}

}  // namespace milabench::test
