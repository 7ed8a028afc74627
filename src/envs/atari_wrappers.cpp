// The Atari wrappers of baselines / pytorch-a2c-ppo-acktr around our Pong
// (declared in pong.hpp).
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "envs/parallel.hpp"
#include "envs/pong.hpp"

namespace milabench {

using namespace pong;

namespace {

// INTER_AREA weights for one axis: output o covers source [o*s, (o+1)*s),
// s = in/out; each source pixel weighs its overlap / s (at most 4 taps here).
struct AreaTaps {
  int first = 0, n = 0;
  float w[4] = {};
};
std::vector<AreaTaps> area_taps(int in, int out) {
  std::vector<AreaTaps> taps(out);
  const double s = double(in) / out;
  for (int o = 0; o < out; ++o) {
    double a = o * s, b = (o + 1) * s;
    taps[o].first = static_cast<int>(a);
    for (int i = taps[o].first; i < in && i < b && taps[o].n < 4; ++i) {
      double w = std::min<double>(b, i + 1) - std::max<double>(a, i);
      taps[o].w[taps[o].n++] = static_cast<float>(std::max(w, 0.0) / s);
    }
  }
  return taps;
}

}  // namespace

void warp_frame(const uint8_t* rgb, uint8_t* out84) {
  static const auto tx = area_taps(kW, kObs), ty = area_taps(kH, kObs);
  // OpenCV's fixed-point RGB2GRAY: (4899 R + 9617 G + 1868 B + 2^13) >> 14.
  uint8_t gray[kH * kW];
  for (int p = 0; p < kH * kW; ++p)
    gray[p] = static_cast<uint8_t>((4899 * rgb[3 * p] + 9617 * rgb[3 * p + 1] + 1868 * rgb[3 * p + 2] + 8192) >> 14);
  float rows[kH][kObs];  // horizontal pass
  for (int y = 0; y < kH; ++y) {
    const uint8_t* g = gray + y * kW;
    for (int o = 0; o < kObs; ++o) {
      const AreaTaps& t = tx[o];
      float acc = 0;
      for (int k = 0; k < t.n; ++k) acc += t.w[k] * g[t.first + k];
      rows[y][o] = acc;
    }
  }
  for (int o = 0; o < kObs; ++o) {  // vertical pass, a row at a time
    float acc[kObs] = {};
    const AreaTaps& t = ty[o];
    for (int k = 0; k < t.n; ++k)
      for (int x = 0; x < kObs; ++x) acc[x] += t.w[k] * rows[t.first + k][x];
    for (int x = 0; x < kObs; ++x) out84[o * kObs + x] = static_cast<uint8_t>(std::clamp(acc[x] + 0.5f, 0.f, 255.f));
  }
}

WrappedPong::WrappedPong(uint32_t seed, int noop_max, int skip)
    : game_(seed), rng_(seed ^ 0x9e3779b9u), noop_max_(noop_max), skip_(skip) {
  if (noop_max < 1 || skip < 2) throw std::invalid_argument("atari wrappers: noop_max >= 1 and skip >= 2");
  frames_[0].assign(kFrameBytes, 0);
  frames_[1].assign(kFrameBytes, 0);
}

double WrappedPong::skip_step(int action, bool* done) {
  double total = 0;
  *done = false;
  for (int i = 0; i < skip_; ++i) {
    total += game_.step(action);
    if (i == skip_ - 2) game_.render(frames_[0].data());
    if (i == skip_ - 1) game_.render(frames_[1].data());
    if (game_.done()) {
      *done = true;
      break;
    }
  }
  uint8_t maxed[kFrameBytes];
  for (int p = 0; p < kFrameBytes; ++p) maxed[p] = std::max(frames_[0][p], frames_[1][p]);
  warp_frame(maxed, obs_.data());
  return total;
}

const WrappedPong::Frame& WrappedPong::reset() {
  // NoopReset sits under MaxAndSkip: 1..noop_max raw frames of NOOP.
  game_.reset();
  const int noops = std::uniform_int_distribution<int>(1, noop_max_)(rng_);
  for (int i = 0; i < noops; ++i) {
    game_.step(kNoop);
    if (game_.done()) game_.reset();
  }
  // FireReset (Pong's action set has FIRE): FIRE, then action 2, each skipped.
  bool done;
  for (int a : {int(kFire), 2}) {
    skip_step(a, &done);
    if (done) game_.reset();
  }
  episode_return_ = 0;
  return obs_;
}

WrappedPong::Step WrappedPong::step(int action) {
  bool done;
  double r = skip_step(action, &done);
  episode_return_ += r;
  Step s{static_cast<float>((r > 0) - (r < 0)), done, 0.0};
  if (done) s.raw_return = episode_return_;
  return s;
}

PongVecEnv::PongVecEnv(int n, uint32_t seed, int threads) : threads_(threads) {
  if (n < 1) throw std::invalid_argument("--num-processes must be >= 1");
  envs_.reserve(n);
  for (int i = 0; i < n; ++i) envs_.emplace_back(seed + 1000u * i);
  stacked_.assign(size_t(n) * kStack * kObs * kObs, 0);
}

void PongVecEnv::push_frame(int i, bool clear) {
  const size_t frame = kObs * kObs;
  uint8_t* s = stacked_.data() + size_t(i) * kStack * frame;
  if (clear) std::memset(s, 0, kStack * frame);
  else std::memmove(s, s + frame, (kStack - 1) * frame);
  std::memcpy(s + (kStack - 1) * frame, envs_[i].obs().data(), frame);
}

const std::vector<uint8_t>& PongVecEnv::reset() {
  parallel_for(size(), threads_, [&](int i) {
    envs_[i].reset();
    push_frame(i, true);
  });
  return stacked_;
}

const std::vector<uint8_t>& PongVecEnv::step(const int64_t* actions, float* rewards, uint8_t* dones) {
  std::vector<double> ret(size(), 0.0);
  parallel_for(size(), threads_, [&](int i) {
    auto s = envs_[i].step(static_cast<int>(actions[i]));
    rewards[i] = s.reward;
    dones[i] = s.done;
    if (s.done) {
      ret[i] = s.raw_return;
      envs_[i].reset();
    }
    push_frame(i, s.done);
  });
  for (int i = 0; i < size(); ++i)
    if (dones[i]) finished_.push_back(ret[i]);
  return stacked_;
}

std::vector<double> PongVecEnv::take_finished_returns() {
  std::vector<double> out;
  out.swap(finished_);
  return out;
}

}  // namespace milabench
