#include "measure/rate_meter.hpp"

#include <algorithm>
#include <cmath>

#include "measure/summary_window.hpp"
#include "measure/window_rule.hpp"

namespace milabench {

RateMeter::RateMeter(MeterOptions opts, Clock clock, Sync sync)
    : opts_(opts), clock_(std::move(clock)), sync_(std::move(sync)) {
  opts_.steady.sample_duration = opts_.sample_duration;
}

void RateMeter::begin() {
  if (finished_ || block_open_) return;
  block_start_ = clock_();
  block_open_ = true;
  if (!started_) {
    start_ = block_start_;
    started_ = true;
  }
}

void RateMeter::arm() {
  if (started_ || finished_) return;
  last_return_ = clock_();
  armed_ = true;
}

void RateMeter::exclude_since_step() {
  if (!block_open_) last_return_ = clock_();
}

bool RateMeter::step(int64_t n) {
  if (finished_) return false;
  double end = clock_();
  if (!block_open_) {
    block_start_ = started_ || armed_ ? last_return_ : end;
    if (!started_) {
      start_ = block_start_;
      started_ = true;
    }
  }
  // Sync only when this block would close a slice (RateLogger.__call__).
  if (sync_ && sync_enabled_ && would_log(end - block_start_)) {
    sync_();
    end = clock_();
  }
  const size_t before = rates_.size();
  const double carried = current_;  // the open slice's seconds before this block
  elapse(end - block_start_, static_cast<double>(n));
  total_count_ += n;
  end_ = last_return_ = clock_();
  ended_ = true;
  block_open_ = false;
  const bool closed = rates_.size() > before;
  for (size_t k = before; k < rates_.size(); ++k)
    slice_ends_.push_back(
        std::min(end, block_start_ + static_cast<double>(k - before + 1) * opts_.sample_duration - carried));
  if (closed && opts_.until_stable && !stable_) stable_ = settled(rates_, opts_.steady) && !stopped_in_window();
  update_window_rule(closed);
  return closed;
}

void RateMeter::update_window_rule(bool slice_closed) {
  if (!opts_.window_rule || opts_.max_count <= 0) return;
  if (total_count_ < opts_.max_count || total_time_ < opts_.min_duration) return;
  const bool first = count_met_time_ < 0;
  if (first) count_met_time_ = total_time_, count_met_count_ = total_count_;
  if (first || slice_closed)
    window_clear_ = summary_window_state(rates_, opts_.sample_duration).clear() && !stopped_in_window();
}

bool RateMeter::stopped_in_window() const {
  if (!stopped_probe_) return false;
  const auto span = window_span();
  return span && stopped_probe_(span->first, span->second) > 0;
}

double RateMeter::extended_time() const { return count_met_time_ < 0 ? 0.0 : total_time_ - count_met_time_; }

int64_t RateMeter::extended_count() const { return count_met_time_ < 0 ? 0 : total_count_ - count_met_count_; }

// RateLogger.elapse, the same floating-point operations in the same order
// (so a recorded trace gives bit-identical rates). The count left for the
// next slice is `count % unit`, not a proportional share: the original's rule.
void RateMeter::elapse(double duration, double count) {
  current_ += duration;
  slice_count_ += count;
  total_time_ += duration;
  if (current_ >= opts_.sample_duration) {
    const double nblocks = current_ / opts_.sample_duration;
    const double unit = slice_count_ / nblocks;
    rates_.insert(rates_.end(), static_cast<size_t>(nblocks), unit / opts_.sample_duration);
    current_ = std::fmod(current_, opts_.sample_duration);
    // Python raises ZeroDivisionError on `0.0 % 0.0` (a slice of 0 examples);
    // here such a slice records rate 0 and carries nothing.
    slice_count_ = unit != 0 ? std::fmod(slice_count_, unit) : 0.0;
  }
}

bool RateMeter::done() const {
  const bool long_enough = total_time_ >= opts_.min_duration;
  if (stable_ && long_enough) return true;
  if (!(opts_.max_count > 0 && total_count_ >= opts_.max_count && long_enough)) return false;
  return !opts_.window_rule || window_clear_ || extended_time() >= opts_.max_extension;
}

void RateMeter::finish() {
  if (finished_) return;
  finished_ = true;
  block_open_ = false;                       // a block begun but never stepped is dropped, as the original's
  if (sync_ && sync_enabled_ && started_) {  // RateLogger.elapse_sync
    const double a = clock_();
    sync_();
    const double b = clock_();
    elapse(b - a, 0);
  }
  if (current_ > 0) rates_.push_back(slice_count_ / current_);
  slice_ends_.resize(rates_.size(), started_ ? clock_() : 0.0);
  current_ = 0;
  slice_count_ = 0;
}

std::optional<std::pair<double, double>> RateMeter::window_span() const {
  if (rates_.empty()) return std::nullopt;
  const auto [begin, end] = summary_window_bounds(static_cast<long>(rates_.size()));
  if (end <= begin) return std::make_pair(start_, slice_ends_.back());
  return std::make_pair(begin == 0 ? start_ : slice_ends_[begin - 1], slice_ends_[end - 1]);
}

nlohmann::json RateMeter::to_json() const {
  const double wall = wall_time();
  return {{"rates", rates_},
          {"count", total_count_},
          {"time", total_time_},
          {"wall_time", wall},
          {"overhead", wall - total_time_},
          {"sample_duration", opts_.sample_duration},
          {"max_count", opts_.max_count},
          {"min_duration", opts_.min_duration},
          {"until_stable", opts_.until_stable},
          {"stopped_stable", stable_},
          {"window_rule", opts_.window_rule},
          {"extended_s", extended_time()},
          {"extended_count", extended_count()}};
}

}  // namespace milabench
