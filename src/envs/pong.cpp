#include "envs/pong.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace milabench {

using namespace pong;

namespace {

constexpr double kBallSpeedX = 2.5;     // pixels per frame
constexpr double kAgentSpeed = 3.0;
constexpr double kOpponentSpeed = 2.0;  // slower than the agent's: the tracking AI can be beaten
constexpr int kServeWait = 20;
constexpr uint8_t kBg[3] = {144, 72, 17}, kWhite[3] = {236, 236, 236};
constexpr uint8_t kAgentRgb[3] = {92, 186, 92}, kOpponentRgb[3] = {213, 130, 74};

// 3x5 digit font, one row per 3 bits.
constexpr uint8_t kDigits[10][5] = {{7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7},
                                    {5, 5, 7, 1, 1}, {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1},
                                    {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7}};

void fill(uint8_t* rgb, int y0, int y1, int x0, int x1, const uint8_t* c) {
  y0 = std::max(y0, 0), y1 = std::min(y1, kH), x0 = std::max(x0, 0), x1 = std::min(x1, kW);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) std::memcpy(rgb + (y * kW + x) * 3, c, 3);
}

void draw_number(uint8_t* rgb, int value, int x0, const uint8_t* c) {
  const int scale = 4;
  int digits[2] = {value / 10 % 10, value % 10};
  for (int d = value >= 10 ? 0 : 1; d < 2; ++d)
    for (int r = 0; r < 5; ++r)
      for (int b = 0; b < 3; ++b)
        if (kDigits[digits[d]][r] & (4 >> b)) {
          int x = x0 + d * 16 + b * scale, y = 2 + r * scale;
          fill(rgb, y, y + scale, x, x + scale, c);
        }
}

double clamp_paddle(double y) { return std::clamp(y, double(kTop), double(kBottom - kPaddleH)); }

}  // namespace

Pong::Pong(uint32_t seed) : rng_(seed) {}

void Pong::reset() {
  s_ = PongState{};
  s_.agent_y = s_.opponent_y = (kTop + kBottom - kPaddleH) / 2.0;
  serve(std::uniform_int_distribution<int>(0, 1)(rng_) ? 1 : -1);
  done_ = false;
}

void Pong::serve(int toward) {
  std::uniform_real_distribution<double> y(kTop + 40, kBottom - 40 - kBallH), vy(-1.5, 1.5);
  s_.ball_x = (kW - kBallW) / 2.0;
  s_.ball_y = y(rng_);
  s_.ball_vx = toward * kBallSpeedX;
  s_.ball_vy = vy(rng_);
  s_.serve_wait = kServeWait;
}

double Pong::step(int action) {
  if (done_) throw std::logic_error("pong: step() on a finished game; call reset()");
  if (action < 0 || action >= kNumActions)
    throw std::logic_error("pong: action " + std::to_string(action) + " outside [0, 6)");
  if (action == kUp || action == kUpFire) s_.agent_y = clamp_paddle(s_.agent_y - kAgentSpeed);
  if (action == kDown || action == kDownFire) s_.agent_y = clamp_paddle(s_.agent_y + kAgentSpeed);
  const double target = s_.serve_wait > 0 ? (kTop + kBottom - kPaddleH) / 2.0 : s_.ball_y + kBallH / 2.0 - kPaddleH / 2.0;
  s_.opponent_y = clamp_paddle(s_.opponent_y + std::clamp(target - s_.opponent_y, -kOpponentSpeed, kOpponentSpeed));
  if (s_.serve_wait > 0) {
    --s_.serve_wait;
    return 0;
  }
  const double prev_x = s_.ball_x;
  s_.ball_x += s_.ball_vx;
  s_.ball_y += s_.ball_vy;
  if (s_.ball_y < kTop) s_.ball_y = 2.0 * kTop - s_.ball_y, s_.ball_vy = -s_.ball_vy;
  if (s_.ball_y + kBallH > kBottom) s_.ball_y = 2.0 * (kBottom - kBallH) - s_.ball_y, s_.ball_vy = -s_.ball_vy;
  auto hits = [&](double paddle_y) {
    return s_.ball_y + kBallH > paddle_y && s_.ball_y < paddle_y + kPaddleH;
  };
  // The hit offset from the paddle's centre sets the new vertical speed.
  auto english = [&](double paddle_y) {
    return 2.5 * ((s_.ball_y + kBallH / 2.0) - (paddle_y + kPaddleH / 2.0)) / (kPaddleH / 2.0 + kBallH / 2.0);
  };
  if (s_.ball_vx > 0 && prev_x + kBallW <= kAgentX && s_.ball_x + kBallW > kAgentX && hits(s_.agent_y)) {
    s_.ball_x = kAgentX - kBallW;
    s_.ball_vx = -s_.ball_vx;
    s_.ball_vy = english(s_.agent_y);
  } else if (s_.ball_vx < 0 && prev_x >= kOpponentX + kPaddleW && s_.ball_x < kOpponentX + kPaddleW &&
             hits(s_.opponent_y)) {
    s_.ball_x = kOpponentX + kPaddleW;
    s_.ball_vx = -s_.ball_vx;
    s_.ball_vy = english(s_.opponent_y);
  }
  double reward = 0;
  if (s_.ball_x + kBallW < 0) {
    ++s_.agent_score, reward = 1;
    serve(-1);
  } else if (s_.ball_x > kW) {
    ++s_.opponent_score, reward = -1;
    serve(1);
  }
  done_ = s_.agent_score >= kWinScore || s_.opponent_score >= kWinScore;
  return reward;
}

void Pong::render(uint8_t* rgb) const {
  static const std::vector<uint8_t> background = [] {  // field and walls, drawn once
    std::vector<uint8_t> b(kFrameBytes);
    fill(b.data(), 0, kH, 0, kW, kBg);
    fill(b.data(), 24, kTop, 0, kW, kWhite);
    fill(b.data(), kBottom, kH, 0, kW, kWhite);
    return b;
  }();
  std::memcpy(rgb, background.data(), kFrameBytes);
  draw_number(rgb, s_.opponent_score, 24, kOpponentRgb);
  draw_number(rgb, s_.agent_score, 104, kAgentRgb);
  int oy = static_cast<int>(std::lround(s_.opponent_y)), ay = static_cast<int>(std::lround(s_.agent_y));
  fill(rgb, oy, oy + kPaddleH, kOpponentX, kOpponentX + kPaddleW, kOpponentRgb);
  fill(rgb, ay, ay + kPaddleH, kAgentX, kAgentX + kPaddleW, kAgentRgb);
  if (s_.serve_wait == 0) {
    int bx = static_cast<int>(std::lround(s_.ball_x)), by = static_cast<int>(std::lround(s_.ball_y));
    fill(rgb, by, by + kBallH, bx, bx + kBallW, kWhite);
  }
}

}  // namespace milabench
