// StopSchedule: when the ranks of one data-parallel run read their stop vote.
// Torch-free.
//
// Every rank must leave the training loop on the same step, or the others
// wait in a collective forever. The original's ranks stopped at --max-count,
// which every rank reaches on the same step (same batch, same count per
// step), with no communication and no host read. Ours can also stop on time
// (the window rule, --min-duration, --until-stable), which only a rank's own
// clock knows: rank 0 decides, and its decision travels in a spare slot of
// the last gradient bucket's all-reduce (DataParallelGroup), which costs
// nothing. Reading that slot back is a host read (a device sync on CUDA), so
// the ranks read it only on agreed "check" steps, never every step:
//   - the first check is the step after the one that reaches --max-count
//     (step ceil(max_count / count_per_step) + 1), or step 2 when the run can
//     end before --max-count (--until-stable, or no --max-count);
//   - at a check, rank 0 votes -1 when its meter is done, else the number of
//     steps to the next check: about one rate slice's worth of steps, so
//     reads come at most about once per slice, as the meter's own syncs;
//   - the other ranks vote 0; the all-reduce sums the votes, so every rank
//     reads rank 0's value.
// A check step that reads -1 is left before the optimizer step and is not
// counted (its timed block is dropped), so the counted work is what rank 0's
// meter counted.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace milabench {

class StopSchedule {
 public:
  // count_per_step: examples every rank counts per step (>= 1); max_count 0
  // means no count limit.
  StopSchedule(int64_t max_count, int64_t count_per_step, bool until_stable) {
    const int64_t per = std::max<int64_t>(1, count_per_step);
    next_ = (max_count > 0 && !until_stable) ? (max_count + per - 1) / per + 1 : 2;
  }

  // Steps are numbered from 1, in the order every rank runs them.
  bool is_check(int64_t step) const { return step == next_; }
  int64_t next_check() const { return next_; }

  // What this rank puts into the vote slot on a check step. `decides`: rank
  // 0. `done`: its meter says the run is over. `steps_per_slice`: its
  // current estimate (examples/s of the last slice x slice seconds / count
  // per step); anything not finite or below 1 gives 1.
  static float vote(bool decides, bool done, double steps_per_slice) {
    if (!decides) return 0.0f;
    if (done) return -1.0f;
    double k = std::isfinite(steps_per_slice) ? std::floor(steps_per_slice) : 1.0;
    return static_cast<float>(std::clamp(k, 1.0, 1e6));  // exact in float
  }

  // After the summed vote of check step `step` was read: true when every
  // rank leaves now; otherwise the next check is scheduled.
  bool leave(float summed, int64_t step) {
    if (summed < 0) return true;
    next_ = step + std::max<int64_t>(1, static_cast<int64_t>(std::llround(summed)));
    return false;
  }

 private:
  int64_t next_ = 2;
};

}  // namespace milabench
