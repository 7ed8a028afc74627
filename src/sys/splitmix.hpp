// splitmix64 (Steele, Lea and Flood, 2014): the one seed mixer of the project.
// Every seeded generator of ours (the statistics' RNG, generated datasets,
// loader shuffles) draws from it, so a seed gives the same bits on every
// platform and standard library. Includes nothing of ours.
#pragma once
#include <cstdint>

namespace milabench {

inline constexpr uint64_t kSplitmixGamma = 0x9e3779b97f4a7c15ull;

// The output for state `x`: the mix of x + gamma. Also a good hash of (seed, index) pairs.
constexpr uint64_t splitmix64(uint64_t x) {
  x += kSplitmixGamma;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The next output of the stream whose state is `state`; advances it by gamma.
inline uint64_t splitmix64_next(uint64_t& state) {
  const uint64_t out = splitmix64(state);
  state += kSplitmixGamma;
  return out;
}

}  // namespace milabench
