// MovieLens-20M as GroupLens ships it: DATAROOT/ml-20m/ratings.csv with the
// header "userId,movieId,rating,timestamp" and one rating per line. The
// recommendation workload reads it through a binary cache (ratings.bin),
// converted once with the original's preprocessing (MLPerf NCF convert.py):
// users with fewer than 20 ratings dropped, users and movies renumbered 0..n-1
// in order of first appearance, each user's ratings ordered by time
// (stable), repeated (user, movie) pairs dropped. No torch here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/dataset.hpp"

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

std::string ml20m_dir(const std::string& dataroot);
std::string ml20m_csv(const std::string& dataroot);    // ml-20m/ratings.csv
std::string ml20m_cache(const std::string& dataroot);  // ml-20m/ratings.bin

// Parses and converts a ratings.csv (threads: 0 = all CPUs). Throws
// std::runtime_error "PATH:LINE: ..." on the first malformed row (wrong
// header, missing field, non-integer id, rating outside [0, 5]), and when no
// user keeps 20 ratings.
Ml20m convert_ml20m_csv(const std::string& csv_path, unsigned threads = 0);

// ratings.bin: little-endian header {char magic[8] = "ML20MBIN", uint32
// version = 1, uint32 0, int64 users, int64 items, int64 pairs} then `pairs`
// (int32 user, int32 item) records. Written atomically. The reader checks the
// magic, the size, ids in range and users ascending; throws naming the file.
void write_ml20m_cache(const std::string& path, const Ml20m& data);
Ml20m read_ml20m_cache(const std::string& path);

// What the workload calls: the cache when it is valid and not older than the
// CSV, else converts the CSV and (re)writes the cache. Throws naming the
// missing file and the command that makes the data.
Ml20m load_ml20m(const std::string& dataroot, unsigned threads = 0);

// Writes a synthetic ratings.csv of 138 493 users x scale (at least 8) over
// 26 744 movies x scale (at least 100): per-user counts 20 + lognormal (median
// 68, mean 144 ratings as the real set, capped at half the movies), movie
// popularity Zipf-like, movieIds sparse as the real ones, ratings 0.5..5 in
// half stars, timestamps 1995..2015; rows sorted by userId then movieId. Then
// builds the cache and records the MANIFEST. Deterministic for a scale.
void generate_ml20m(const std::string& dataroot, const DatasetOptions& opts);

bool ml20m_present(const std::string& dataroot);
nlohmann::json ml20m_provenance(const std::string& dataroot);

}  // namespace milabench
