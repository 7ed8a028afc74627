// Fuzz target: MovieLens ratings.csv parsing + conversion and the ratings.bin
// cache parser (data/movielens_csv.hpp). Contract: any bytes either convert
// (and the result is consistent: ids in range, users' ranges contiguous, and
// it round-trips through the cache format) or throw DataFormatError with one
// line naming the input; no crash, no sanitizer report, no allocation sized
// by a header field. The buffer is given to both parsers.
#include <cstdint>
#include <string>
#include <string_view>

#include "data/movielens_csv.hpp"
#include "fuzz_contract.hpp"

namespace {

using milabench::Ml20m;
using milabench::fuzz::require;

void check_consistent(const Ml20m& d) {
  require(d.users >= 1 && d.items >= 1 && d.user_begin.size() == size_t(d.users) + 1);
  require(d.user_begin.front() == 0 && d.user_begin.back() == d.pairs());
  for (size_t u = 0; u + 1 < d.user_begin.size(); ++u) require(d.user_begin[u] <= d.user_begin[u + 1]);
  for (int32_t i : d.item) require(i >= 0 && i < d.items);
  const Ml20m r = milabench::parse_ml20m_cache(milabench::encode_ml20m_cache(d), "fuzz/round-trip");
  require(r.users == d.users && r.items == d.items && r.item == d.item && r.user_begin == d.user_begin);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    check_consistent(milabench::convert_ratings_csv(bytes, "fuzz/ratings.csv", 1));
  } catch (const milabench::DataFormatError& e) {
    milabench::fuzz::check_error_message(e.what(), "fuzz/ratings.csv");
  }
  try {
    check_consistent(milabench::parse_ml20m_cache(bytes, "fuzz/ratings.bin"));
  } catch (const milabench::DataFormatError& e) {
    milabench::fuzz::check_error_message(e.what(), "fuzz/ratings.bin");
  }
  return 0;
}
