// Progress a person can follow: count/max, current rate, loss and ETA.
// On a terminal one live line is redrawn at every update; otherwise (a log
// file) one line is written every `log_interval_s` seconds and at the end.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace milabench {

class Progress {
 public:
  // `out` must outlive this object. `max_count` 0 = unbounded (no ETA).
  Progress(std::ostream& out, std::string label, std::string unit, int64_t max_count, bool live,
           double log_interval_s = 15.0);

  // Called when a rate slice closes. `now_s`: seconds since the run started;
  // `rate`: examples/s of the last slice; `loss`: last read loss, if any.
  void update(double now_s, int64_t count, double rate, std::optional<double> loss);
  // Final line (always written; ends the live line with a newline).
  void finish(double now_s, int64_t count);

  // "1h02m", "3m05s", "42s".
  static std::string duration(double seconds);

 private:
  std::string line(double now_s, int64_t count, double rate, std::optional<double> loss) const;
  std::ostream& out_;
  std::string label_, unit_;
  int64_t max_count_;
  bool live_;
  double log_interval_s_;
  double last_logged_ = -1e300;
  bool drew_live_ = false;
};

}  // namespace milabench
