// MovieLens-20M as GroupLens ships it: DATAROOT/ml-20m/ratings.csv with the
// header "userId,movieId,rating,timestamp" and one rating per line. The
// recommendation workload reads it through a binary cache (ratings.bin),
// converted once with the original's preprocessing (MLPerf NCF convert.py):
// users with fewer than 20 ratings dropped, users and movies renumbered 0..n-1
// in order of first appearance, each user's ratings ordered by time
// (stable), repeated (user, movie) pairs dropped. No torch here.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "data/movielens_csv.hpp"

namespace milabench {

std::string ml20m_dir(const std::string& dataroot);
std::string ml20m_csv(const std::string& dataroot);    // ml-20m/ratings.csv
std::string ml20m_cache(const std::string& dataroot);  // ml-20m/ratings.bin

// How many parts (threads) the CSV parser splits a body of `body_bytes` into:
// `threads`, or with 0 the CPUs this process may use (usable_cpu_count: only
// its partition when pinned), at most one part per MiB, at least 1.
size_t ml20m_parse_parts(size_t body_bytes, unsigned threads);

// Maps and converts a ratings.csv (convert_ratings_csv; threads: 0 = the
// CPUs this process may use, ml20m_parse_parts). Throws std::runtime_error naming the file when it cannot be opened,
// DataFormatError "PATH:LINE: ..." on the first malformed row and when no
// user keeps 20 ratings.
Ml20m convert_ml20m_csv(const std::string& csv_path, unsigned threads = 0);

// ratings.bin (encode_ml20m_cache's format), written atomically. The reader
// (parse_ml20m_cache) checks the magic, the size, ids in range and users
// ascending; throws naming the file.
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
