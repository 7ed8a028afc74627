// BabyAI-UnlockPickup-v0 (MiniGrid rules) in C++. No torch.
//
// Layout: an 11x6 grid holding two 6x6 rooms side by side that share the wall
// x = 5. The shared wall has one locked door of a random colour; the key of
// that colour lies in the left room with the agent; a box of a random colour
// lies in the right room. The mission is "pick up the <colour> box".
// Picking the box up ends the episode with reward 1 - 0.9 * step_count /
// max_steps; running out of steps ends it with reward 0.
//
// Observation: MiniGrid's 7x7x3 egocentric encoding (OBJECT_IDX, COLOR_IDX,
// STATE_IDX per cell, indexed [x][y][channel], agent at (3, 6) looking "up"
// the image), walls and closed doors occluding as MiniGrid's process_vis.
#pragma once
#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace milabench {

namespace minigrid {
// MiniGrid's OBJECT_TO_IDX, COLOR_TO_IDX and door STATE values.
enum Object : uint8_t { kUnseen = 0, kEmpty = 1, kWall = 2, kFloor = 3, kDoor = 4, kKey = 5,
                        kBall = 6, kBox = 7, kGoal = 8, kLava = 9, kAgent = 10 };
enum Color : uint8_t { kRed = 0, kGreen = 1, kBlue = 2, kPurple = 3, kYellow = 4, kGrey = 5 };
enum DoorState : uint8_t { kOpen = 0, kClosed = 1, kLocked = 2 };
enum Action : int { kLeft = 0, kRight = 1, kForward = 2, kPickup = 3, kDrop = 4, kToggle = 5, kDone = 6 };
constexpr int kNumActions = 7;
constexpr int kView = 7;                       // agent_view_size
constexpr int kObsSize = kView * kView * 3;    // 147 bytes
}  // namespace minigrid

// One grid cell. type kEmpty means nothing there.
struct Cell {
  uint8_t type = minigrid::kEmpty;
  uint8_t color = 0;
  uint8_t state = 0;  // doors only: kOpen / kClosed / kLocked
  bool operator==(const Cell& o) const { return type == o.type && color == o.color && state == o.state; }
};

using GridObs = std::array<uint8_t, minigrid::kObsSize>;  // [x][y][c], x fastest-varying last

struct GridStep {
  double reward;   // 0, or 1 - 0.9 * steps / max_steps on success
  bool done;       // success or step limit
  bool success;    // the box was picked up
};

class UnlockPickup {
 public:
  static constexpr int kWidth = 11, kHeight = 6, kRoomSize = 6;
  static constexpr int kMaxSteps = 8 * kRoomSize * kRoomSize;  // 288, as BabyAI's level

  explicit UnlockPickup(uint32_t seed);

  // New random episode; returns the first observation.
  const GridObs& reset();
  // Applies one action (minigrid::Action). Throws std::logic_error on a
  // finished episode (call reset()) or an action outside [0, 7).
  GridStep step(int action);

  const GridObs& obs() const { return obs_; }
  // Mission colour: "pick up the <box_color> box".
  int box_color() const { return box_color_; }
  int door_color() const { return door_color_; }
  int steps() const { return steps_; }
  bool done() const { return done_; }
  int agent_x() const { return ax_; }
  int agent_y() const { return ay_; }
  int agent_dir() const { return dir_; }  // 0 right, 1 down, 2 left, 3 up
  const Cell* carrying() const { return carrying_.type == minigrid::kEmpty ? nullptr : &carrying_; }

  // Test seam: replaces the world with the given cells and agent pose and
  // recomputes the observation. `cells` is kWidth*kHeight, index y*kWidth+x;
  // box_color is the mission's colour. The step count restarts at 0.
  void set_state(const std::vector<Cell>& cells, int ax, int ay, int dir, int box_color, Cell carrying = {});
  const Cell& cell(int x, int y) const { return grid_[y * kWidth + x]; }

 private:
  Cell& at(int x, int y) { return grid_[y * kWidth + x]; }
  void place_random(int room_left, Cell c);
  void compute_obs();

  std::mt19937 rng_;
  std::vector<Cell> grid_;
  int ax_ = 0, ay_ = 0, dir_ = 0;
  Cell carrying_;
  int box_color_ = 0, door_color_ = 0;
  int steps_ = 0;
  bool done_ = true;
  GridObs obs_{};
};

}  // namespace milabench
