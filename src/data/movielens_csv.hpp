// MovieLens-20M parsing without files or torch: ratings.csv text -> the
// original's implicit-feedback conversion (MLPerf NCF convert.py), and the
// binary cache bytes <-> Ml20m. data/movielens.cpp maps the files and calls
// these; fuzz/movielens_fuzz.cpp feeds them arbitrary bytes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/format_error.hpp"

namespace milabench {

constexpr int64_t kMl20mUsers = 138493;
constexpr int64_t kMl20mItems = 26744;
constexpr int64_t kMl20mRatings = 20000263;
constexpr int kMl20mMinRatings = 20;  // per user, as the original's convert.py

// Implicit-feedback interactions after conversion. Pairs are grouped by user
// (users ascending), time-ordered within a user; user_begin[u]..user_begin[u+1]
// indexes user u's pairs (so a user's last pair is its most recent rating).
struct Ml20m {
  int64_t users = 0, items = 0;
  std::vector<int32_t> item;        // item id per pair
  std::vector<int64_t> user_begin;  // size users + 1
  int64_t pairs() const { return int64_t(item.size()); }
};

// Parses `text` (a whole ratings.csv: header "userId,movieId,rating,timestamp",
// then one rating a line, blank lines skipped) with `threads` parsers (0 = all
// CPUs) and converts it: users with fewer than 20 ratings dropped, users and
// movies renumbered 0..n-1 in order of first appearance, each user's ratings
// stably ordered by time, repeated (user, movie) pairs dropped. Throws
// DataFormatError "SOURCE:LINE: ..." at the first malformed row (wrong header,
// not 4 fields, id not a non-negative 32-bit integer, rating outside [0, 5],
// timestamp not an integer) and "SOURCE: ..." when no user keeps 20 ratings.
Ml20m convert_ratings_csv(std::string_view text, const std::string& source, unsigned threads = 0);

// The cache's bytes: little-endian header {char magic[8] = "ML20MBIN", uint32
// version = 1, uint32 0, int64 users, int64 items, int64 pairs} then `pairs`
// (int32 user, int32 item) records.
std::string encode_ml20m_cache(const Ml20m& data);

// Parses cache bytes. Throws DataFormatError naming `source` on a bad magic or
// version, a header inconsistent with the length (checked before anything is
// allocated: pairs must match the length, users and items cannot exceed
// pairs), or a record out of range or out of user order.
Ml20m parse_ml20m_cache(std::string_view bytes, const std::string& source);

}  // namespace milabench
