// A Pong-like two-paddle game rendering 210x160 RGB frames, and the standard
// Atari wrappers around it (as in baselines/pytorch-a2c-ppo-acktr). No torch.
//
// This is NOT the Arcade Learning Environment: it is our own game with ALE
// Pong's screen size, palette, action set and scoring, so the learner sees
// the same tensors (4x84x84 uint8 after the wrappers) and does the same work.
#pragma once
#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace milabench {

namespace pong {
constexpr int kH = 210, kW = 160;          // raw frame, RGB
constexpr int kFrameBytes = kH * kW * 3;
constexpr int kObs = 84;                   // warped frame side
constexpr int kStack = 4;
// ALE Pong's minimal action set. RIGHT moves the paddle up, LEFT down.
enum Action : int { kNoop = 0, kFire = 1, kUp = 2, kDown = 3, kUpFire = 4, kDownFire = 5 };
constexpr int kNumActions = 6;
constexpr int kTop = 34, kBottom = 194;    // play area rows [kTop, kBottom)
constexpr int kPaddleH = 16, kPaddleW = 4, kBallW = 2, kBallH = 4;
constexpr int kAgentX = 140, kOpponentX = 16;  // paddles' left columns
constexpr int kWinScore = 21;
}  // namespace pong

struct PongState {
  double ball_x = 0, ball_y = 0;   // top-left of the ball, pixels
  double ball_vx = 0, ball_vy = 0; // pixels per frame
  double agent_y = 0, opponent_y = 0;  // paddles' top rows
  int agent_score = 0, opponent_score = 0;
  int serve_wait = 0;              // frames until the ball is served (ball hidden meanwhile)
};

// One raw frame per step (60 Hz), like PongNoFrameskip.
class Pong {
 public:
  explicit Pong(uint32_t seed);
  void reset();
  // Returns +1 when the agent scores, -1 when the opponent scores, else 0.
  // Sets done() when either side reaches 21. Throws std::logic_error on a bad
  // action or a finished game.
  double step(int action);
  bool done() const { return done_; }
  // Writes the current screen, kH x kW x 3 bytes (row-major, RGB).
  void render(uint8_t* rgb) const;

  PongState& state() { return s_; }  // test seam
  const PongState& state() const { return s_; }

 private:
  void serve(int toward);  // toward: +1 the agent's side, -1 the opponent's
  std::mt19937 rng_;
  PongState s_;
  bool done_ = true;
};

// Pong behind NoopReset(30) -> MaxAndSkip(4) -> FireReset -> WarpFrame(84x84
// gray) -> ClipReward, one environment. EpisodicLife is a no-op for Pong (no
// lives) and is left out.
class WrappedPong {
 public:
  using Frame = std::array<uint8_t, pong::kObs * pong::kObs>;
  struct Step {
    float reward;       // sign of the skipped frames' summed reward
    bool done;
    double raw_return;  // unclipped episode return when done, else 0
  };
  explicit WrappedPong(uint32_t seed, int noop_max = 30, int skip = 4);
  const Frame& reset();
  Step step(int action);
  const Frame& obs() const { return obs_; }
  Pong& game() { return game_; }

 private:
  double skip_step(int action, bool* done);  // MaxAndSkip: summed reward, max of last two frames
  Pong game_;
  std::mt19937 rng_;
  int noop_max_, skip_;
  std::vector<uint8_t> frames_[2];
  Frame obs_{};
  double episode_return_ = 0;
};

// RGB 210x160 -> gray 84x84, OpenCV's RGB2GRAY weights and INTER_AREA resize.
void warp_frame(const uint8_t* rgb, uint8_t* out84);

// n wrapped games stepped together with frame stacking (4 x 84 x 84 per env,
// zeroed on episode end as VecPyTorchFrameStack) and auto-reset.
class PongVecEnv {
 public:
  // threads: workers stepping the games (1 = sequential in the caller).
  PongVecEnv(int n, uint32_t seed, int threads);
  int size() const { return static_cast<int>(envs_.size()); }
  // Stacked observations, n * 4 * 84 * 84 bytes.
  const std::vector<uint8_t>& reset();
  // actions: n ints. Fills rewards/dones (n each); finished games restart.
  const std::vector<uint8_t>& step(const int64_t* actions, float* rewards, uint8_t* dones);
  // Unclipped returns of episodes finished since the last call.
  std::vector<double> take_finished_returns();

 private:
  void push_frame(int i, bool clear);
  std::vector<WrappedPong> envs_;
  std::vector<uint8_t> stacked_;
  std::vector<double> finished_;
  int threads_;
};

}  // namespace milabench
