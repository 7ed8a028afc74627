#include "envs/unlock_pickup.hpp"

#include <stdexcept>

namespace milabench {

using namespace minigrid;

namespace {

constexpr int kDx[4] = {1, 0, -1, 0};
constexpr int kDy[4] = {0, 1, 0, -1};

Cell wall() { return {kWall, kGrey, 0}; }
bool see_behind(const Cell& c) {
  if (c.type == kWall) return false;
  if (c.type == kDoor) return c.state == kOpen;
  return true;
}
bool can_overlap(const Cell& c) { return c.type == kEmpty || (c.type == kDoor && c.state == kOpen); }
bool can_pickup(const Cell& c) { return c.type == kKey || c.type == kBall || c.type == kBox; }

}  // namespace

UnlockPickup::UnlockPickup(uint32_t seed) : rng_(seed), grid_(kWidth * kHeight) {}

void UnlockPickup::place_random(int room_left, Cell c) {
  std::uniform_int_distribution<int> ux(room_left + 1, room_left + kRoomSize - 2), uy(1, kRoomSize - 2);
  while (true) {
    int x = ux(rng_), y = uy(rng_);
    if (at(x, y).type != kEmpty) continue;
    at(x, y) = c;
    return;
  }
}

const GridObs& UnlockPickup::reset() {
  std::uniform_int_distribution<int> color(0, 5), dir(0, 3), door_y(1, kRoomSize - 2);
  for (auto& c : grid_) c = Cell{};
  for (int x = 0; x < kWidth; ++x) at(x, 0) = at(x, kHeight - 1) = wall();
  for (int y = 0; y < kHeight; ++y) at(0, y) = at(kRoomSize - 1, y) = at(kWidth - 1, y) = wall();
  // Same draw order as BabyAI's gen_mission: box, door, key, agent.
  box_color_ = color(rng_);
  place_random(kRoomSize - 1, {kBox, static_cast<uint8_t>(box_color_), 0});
  int dy = door_y(rng_);
  door_color_ = color(rng_);
  at(kRoomSize - 1, dy) = {kDoor, static_cast<uint8_t>(door_color_), kLocked};
  place_random(0, {kKey, static_cast<uint8_t>(door_color_), 0});
  // The agent never starts facing an object (a wall is fine), as BabyAI's place_agent.
  std::uniform_int_distribution<int> ux(1, kRoomSize - 2), uy(1, kRoomSize - 2);
  while (true) {
    ax_ = ux(rng_);
    ay_ = uy(rng_);
    dir_ = dir(rng_);
    if (at(ax_, ay_).type != kEmpty) continue;
    const Cell& f = at(ax_ + kDx[dir_], ay_ + kDy[dir_]);
    if (f.type == kEmpty || f.type == kWall) break;
  }
  carrying_ = Cell{};
  steps_ = 0;
  done_ = false;
  compute_obs();
  return obs_;
}

GridStep UnlockPickup::step(int action) {
  if (done_) throw std::logic_error("unlock_pickup: step() on a finished episode; call reset()");
  if (action < 0 || action >= kNumActions)
    throw std::logic_error("unlock_pickup: action " + std::to_string(action) + " outside [0, 7)");
  ++steps_;
  const int fx = ax_ + kDx[dir_], fy = ay_ + kDy[dir_];
  Cell& front = at(fx, fy);  // the agent is always inside the outer wall
  bool success = false;
  switch (action) {
    case kLeft: dir_ = (dir_ + 3) % 4; break;
    case kRight: dir_ = (dir_ + 1) % 4; break;
    case kForward:
      if (can_overlap(front)) ax_ = fx, ay_ = fy;
      break;
    case kPickup:
      if (can_pickup(front) && carrying_.type == kEmpty) {
        carrying_ = front;
        front = Cell{};
        success = carrying_.type == kBox && carrying_.color == box_color_;
      }
      break;
    case kDrop:
      if (front.type == kEmpty && carrying_.type != kEmpty) {
        front = carrying_;
        carrying_ = Cell{};
      }
      break;
    case kToggle:
      if (front.type == kDoor) {
        if (front.state == kLocked) {
          if (carrying_.type == kKey && carrying_.color == front.color) front.state = kOpen;
        } else {
          front.state = front.state == kOpen ? kClosed : kOpen;
        }
      } else if (front.type == kBox) {
        front = Cell{};  // MiniGrid's Box.toggle replaces the box by its (empty) contents
      }
      break;
    default: break;  // kDone: no effect in this level
  }
  double reward = success ? 1.0 - 0.9 * (static_cast<double>(steps_) / kMaxSteps) : 0.0;
  done_ = success || steps_ >= kMaxSteps;
  compute_obs();
  return {reward, done_, success};
}

void UnlockPickup::set_state(const std::vector<Cell>& cells, int ax, int ay, int dir, int box_color,
                             Cell carrying) {
  if (cells.size() != grid_.size()) throw std::invalid_argument("unlock_pickup: set_state needs 66 cells");
  grid_ = cells;
  ax_ = ax, ay_ = ay, dir_ = dir;
  carrying_ = carrying;
  box_color_ = box_color;
  steps_ = 0;
  done_ = false;
  compute_obs();
}

// MiniGrid's gen_obs: slice the 7x7 view in front of the agent (outside the
// grid reads as wall), rotate so the agent looks up from (3, 6), compute the
// visibility mask (process_vis), put the carried object on the agent's cell,
// encode; hidden cells encode as 0 (unseen), visible empty ones as 1.
void UnlockPickup::compute_obs() {
  int top_x, top_y;
  switch (dir_) {
    case 0: top_x = ax_, top_y = ay_ - kView / 2; break;
    case 1: top_x = ax_ - kView / 2, top_y = ay_; break;
    case 2: top_x = ax_ - kView + 1, top_y = ay_ - kView / 2; break;
    default: top_x = ax_ - kView / 2, top_y = ay_ - kView + 1; break;
  }
  Cell view[kView][kView];  // [i][j]
  for (int j = 0; j < kView; ++j)
    for (int i = 0; i < kView; ++i) {
      int x = top_x + i, y = top_y + j;
      view[i][j] = (x >= 0 && x < kWidth && y >= 0 && y < kHeight) ? cell(x, y) : wall();
    }
  for (int r = 0; r < dir_ + 1; ++r) {  // rotate_left: new(j, H-1-i) = old(i, j)
    Cell rot[kView][kView];
    for (int i = 0; i < kView; ++i)
      for (int j = 0; j < kView; ++j) rot[j][kView - 1 - i] = view[i][j];
    for (int i = 0; i < kView; ++i)
      for (int j = 0; j < kView; ++j) view[i][j] = rot[i][j];
  }
  bool mask[kView][kView] = {};
  mask[kView / 2][kView - 1] = true;
  for (int j = kView - 1; j >= 0; --j) {
    for (int i = 0; i < kView - 1; ++i) {
      if (!mask[i][j] || !see_behind(view[i][j])) continue;
      mask[i + 1][j] = true;
      if (j > 0) mask[i + 1][j - 1] = mask[i][j - 1] = true;
    }
    for (int i = kView - 1; i >= 1; --i) {
      if (!mask[i][j] || !see_behind(view[i][j])) continue;
      mask[i - 1][j] = true;
      if (j > 0) mask[i - 1][j - 1] = mask[i][j - 1] = true;
    }
  }
  view[kView / 2][kView - 1] = carrying_;
  for (int i = 0; i < kView; ++i)
    for (int j = 0; j < kView; ++j) {
      uint8_t* o = &obs_[(i * kView + j) * 3];
      if (!mask[i][j]) {
        o[0] = o[1] = o[2] = 0;
      } else {
        const Cell& c = view[i][j];
        o[0] = c.type;
        o[1] = c.type == kEmpty ? 0 : c.color;
        o[2] = c.type == kDoor ? c.state : 0;
      }
    }
}

}  // namespace milabench
