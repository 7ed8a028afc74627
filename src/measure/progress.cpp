#include "measure/progress.hpp"

#include <cmath>

#include <fmt/format.h>

namespace milabench {

Progress::Progress(std::ostream& out, std::string label, std::string unit, int64_t max_count, bool live,
                   double log_interval_s)
    : out_(out), label_(std::move(label)), unit_(std::move(unit)), max_count_(max_count), live_(live),
      log_interval_s_(log_interval_s) {}

std::string Progress::duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  auto t = static_cast<int64_t>(std::llround(s));
  if (t >= 3600) return fmt::format("{}h{:02d}m", t / 3600, (t % 3600) / 60);
  if (t >= 60) return fmt::format("{}m{:02d}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

std::string Progress::line(double now_s, int64_t count, double rate, std::optional<double> loss) const {
  std::string s = fmt::format("{}: {}", label_, count);
  if (max_count_ > 0)
    s += fmt::format("/{} {} ({:.0f}%)", max_count_, unit_, 100.0 * double(count) / double(max_count_));
  else
    s += " " + unit_;
  s += fmt::format(", {:.1f}/s", rate);
  if (loss) s += fmt::format(", loss {:.4g}", *loss);
  s += ", elapsed " + duration(now_s);
  if (max_count_ > 0 && rate > 0 && count < max_count_)
    s += ", ETA " + duration(double(max_count_ - count) / rate);
  return s;
}

void Progress::update(double now_s, int64_t count, double rate, std::optional<double> loss) {
  if (live_) {
    out_ << "\r\x1b[K" << line(now_s, count, rate, loss) << std::flush;
    drew_live_ = true;
    return;
  }
  if (now_s - last_logged_ < log_interval_s_) return;
  last_logged_ = now_s;
  out_ << line(now_s, count, rate, loss) << "\n" << std::flush;
}

void Progress::finish(double now_s, int64_t count) {
  if (drew_live_) out_ << "\r\x1b[K";
  out_ << fmt::format("{}: finished {} {} in {}\n", label_, count, unit_, duration(now_s)) << std::flush;
}

}  // namespace milabench
