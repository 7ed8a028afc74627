#include "measure/rate_meter.hpp"

#include <cmath>

namespace milabench {

RateMeter::RateMeter(MeterOptions opts, Clock clock, Sync sync)
    : opts_(opts), clock_(std::move(clock)), sync_(std::move(sync)) {
  opts_.steady.sample_duration = opts_.sample_duration;
}

void RateMeter::start() {
  if (sync_) sync_();
  t_start_ = slice_start_ = clock_();
  started_ = true;
}

bool RateMeter::step(int64_t n) {
  if (!started_) start();
  count_ += n;
  slice_count_ += n;
  double now = clock_();
  if (now - slice_start_ < opts_.sample_duration) return false;
  // The host clock says the slice is over; wait for queued device work so the
  // rate covers what was really computed.
  if (sync_) {
    sync_();
    double after = clock_();
    overhead_ += after - now;
    now = after;
  }
  double elapsed = now - slice_start_;
  double rate = elapsed > 0 ? static_cast<double>(slice_count_) / elapsed : 0.0;
  // A step longer than one slice fills every slice it spanned with its rate.
  auto slices = std::max<int64_t>(1, static_cast<int64_t>(std::floor(elapsed / opts_.sample_duration)));
  for (int64_t i = 0; i < slices; ++i) rates_.push_back(rate);
  measured_ += elapsed;
  slice_start_ = now;
  slice_count_ = 0;
  if (opts_.until_stable && !stable_) stable_ = settled(rates_, opts_.steady);
  return true;
}

void RateMeter::finish() {
  if (finished_) return;
  if (!started_) start();
  if (sync_) sync_();
  t_end_ = clock_();
  finished_ = true;
}

nlohmann::json RateMeter::to_json() const {
  double wall = (finished_ ? t_end_ : clock_()) - t_start_;
  return {{"rates", rates_},
          {"count", count_},
          {"time", measured_},
          {"wall_time", wall},
          {"overhead", overhead_},
          {"sample_duration", opts_.sample_duration},
          {"max_count", opts_.max_count},
          {"until_stable", opts_.until_stable},
          {"stopped_stable", stable_}};
}

}  // namespace milabench
