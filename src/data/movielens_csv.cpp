// ratings.csv parsing, the original's conversion and the cache encoding.
#include "data/movielens_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <numeric>
#include <thread>
#include <unordered_map>

#include "data/movielens.hpp"
#include "sys/cpus.hpp"

namespace milabench {
namespace {

constexpr char kHeader[] = "userId,movieId,rating,timestamp";
constexpr char kMagic[8] = {'M', 'L', '2', '0', 'M', 'B', 'I', 'N'};
constexpr uint32_t kVersion = 1;
constexpr size_t kCacheHeader = 40;

struct Row {
  int32_t user, movie;
  int64_t time;
};

// Rows of one slice of the body. On a malformed row, parsing stops and
// `error`, `error_line` (1-based within the slice) are set.
struct ParsedRange {
  std::vector<Row> rows;
  int64_t lines = 0;
  int64_t error_line = 0;
  std::string error;
};

template <typename T>
bool parse_int(std::string_view f, T& v) {
  auto r = std::from_chars(f.data(), f.data() + f.size(), v);
  return r.ec == std::errc() && r.ptr == f.data() + f.size() && !f.empty();
}

// The row as quoted in an error: at most 80 bytes, control bytes as '?', so
// the message stays on one line.
std::string quote(std::string_view line) {
  std::string q(line.substr(0, 80));
  for (char& c : q)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return "\"" + q + "\"";
}

void parse_range(std::string_view text, ParsedRange& out) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++out.lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;  // blank lines are skipped, as pandas does
    std::string_view f[4];
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= line.size() && n < 5; ++i)
      if (i == line.size() || line[i] == ',') {
        if (n < 4) f[n] = line.substr(start, i - start);
        ++n, start = i + 1;
      }
    Row r{};
    double rating = 0;
    const char* why = nullptr;
    if (n != 4)
      why = "expected 4 comma-separated fields (userId,movieId,rating,timestamp)";
    else if (!parse_int(f[0], r.user) || r.user < 0)
      why = "userId is not a non-negative 32-bit integer";
    else if (!parse_int(f[1], r.movie) || r.movie < 0)
      why = "movieId is not a non-negative 32-bit integer";
    else if (std::from_chars(f[2].data(), f[2].data() + f[2].size(), rating).ptr != f[2].data() + f[2].size() ||
             f[2].empty() || !(rating >= 0 && rating <= 5))
      why = "rating is not a number in [0, 5]";
    else if (!parse_int(f[3], r.time))
      why = "timestamp is not an integer";
    if (why) {
      out.error = std::string(why) + ": " + quote(line);
      out.error_line = out.lines;
      return;
    }
    out.rows.push_back(r);
  }
}

// Dense id -> index table for ids up to 16M, a hash map above.
class IdMap {
 public:
  IdMap(int64_t max_id, int32_t init) : dense_(max_id < (1 << 24)), init_(init) {
    if (dense_) table_.assign(size_t(max_id + 1), init);
  }
  int32_t& operator[](int32_t id) { return dense_ ? table_[size_t(id)] : hash_.try_emplace(id, init_).first->second; }

 private:
  bool dense_;
  int32_t init_;
  std::vector<int32_t> table_;
  std::unordered_map<int32_t, int32_t> hash_;
};

// Parses every row of `text` in parallel; throws at the first bad row.
std::vector<Row> parse_csv(std::string_view text, const std::string& source, unsigned threads) {
  size_t eol = text.find('\n');
  std::string_view header = text.substr(0, eol);
  if (!header.empty() && header.back() == '\r') header.remove_suffix(1);
  if (header != kHeader)
    throw DataFormatError(source + ":1", std::string("header must be \"") + kHeader + "\", got " + quote(header));
  std::string_view body = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
  const size_t nparts = ml20m_parse_parts(body.size(), threads);
  std::vector<size_t> cut{0};
  for (size_t k = 1; k < nparts; ++k) {
    size_t c = std::max(cut.back(), body.size() * k / nparts);
    size_t nl = body.find('\n', c);
    cut.push_back(nl == std::string_view::npos ? body.size() : nl + 1);
  }
  cut.push_back(body.size());
  std::vector<ParsedRange> parts(nparts);
  std::vector<std::thread> pool;
  for (size_t k = 1; k < nparts; ++k)
    pool.emplace_back([&, k] { parse_range(body.substr(cut[k], cut[k + 1] - cut[k]), parts[k]); });
  parse_range(body.substr(cut[0], cut[1] - cut[0]), parts[0]);
  for (auto& t : pool) t.join();
  int64_t line = 1;  // the header
  size_t total = 0;
  for (auto& p : parts) {
    if (!p.error.empty()) throw DataFormatError(source + ":" + std::to_string(line + p.error_line), p.error);
    line += p.lines;
    total += p.rows.size();
  }
  std::vector<Row> rows;
  rows.reserve(total);
  for (auto& p : parts) {
    rows.insert(rows.end(), p.rows.begin(), p.rows.end());
    std::vector<Row>().swap(p.rows);
  }
  return rows;
}

}  // namespace

size_t ml20m_parse_parts(size_t body_bytes, unsigned threads) {
  const size_t cpus = threads ? threads : static_cast<size_t>(usable_cpu_count());
  return std::max<size_t>(1, std::min<size_t>(cpus, body_bytes / (1 << 20) + 1));
}

Ml20m convert_ratings_csv(std::string_view text, const std::string& source, unsigned threads) {
  std::vector<Row> rows = parse_csv(text, source, threads);
  int32_t max_user = 0, max_movie = 0;
  for (const Row& r : rows) max_user = std::max(max_user, r.user), max_movie = std::max(max_movie, r.movie);
  // Users with >= 20 ratings, renumbered (as items) in order of first appearance.
  IdMap count(max_user, 0), user_id(max_user, -1), item_id(max_movie, -1);
  for (const Row& r : rows) ++count[r.user];
  Ml20m d;
  std::vector<int64_t> per_user;
  for (const Row& r : rows) {
    if (count[r.user] < kMl20mMinRatings) continue;
    int32_t& u = user_id[r.user];
    if (u < 0) u = int32_t(d.users++), per_user.push_back(0);
    ++per_user[size_t(u)];
    int32_t& i = item_id[r.movie];
    if (i < 0) i = int32_t(d.items++);
  }
  if (d.users == 0)
    throw DataFormatError(source, "no user has " + std::to_string(kMl20mMinRatings) +
                                      " ratings (the original's minimum); nothing to train on");
  // Counting sort by user (stable: file order within a user), then by time.
  d.user_begin.assign(size_t(d.users) + 1, 0);
  for (int64_t u = 0; u < d.users; ++u) d.user_begin[size_t(u) + 1] = d.user_begin[size_t(u)] + per_user[size_t(u)];
  std::vector<std::pair<int64_t, int32_t>> slot(size_t(d.user_begin.back()));  // (time, item)
  std::vector<int64_t> fill(d.user_begin.begin(), d.user_begin.end() - 1);
  for (const Row& r : rows) {
    if (count[r.user] < kMl20mMinRatings) continue;
    slot[size_t(fill[size_t(user_id[r.user])]++)] = {r.time, item_id[r.movie]};
  }
  std::vector<Row>().swap(rows);
  std::vector<int64_t> seen(size_t(d.items), -1);  // last user that had the item
  d.item.reserve(slot.size());
  int64_t begin = 0;
  for (int64_t u = 0; u < d.users; ++u) {
    auto first = slot.begin() + d.user_begin[size_t(u)], last = slot.begin() + d.user_begin[size_t(u) + 1];
    std::stable_sort(first, last, [](const auto& a, const auto& b) { return a.first < b.first; });
    d.user_begin[size_t(u)] = begin;
    for (auto it = first; it != last; ++it)
      if (seen[size_t(it->second)] != u) seen[size_t(it->second)] = u, d.item.push_back(it->second), ++begin;
  }
  d.user_begin[size_t(d.users)] = begin;
  return d;
}

std::string encode_ml20m_cache(const Ml20m& d) {
  std::string buf(kCacheHeader + size_t(d.pairs()) * 8, '\0');
  char* p = buf.data();
  auto put = [&p](const void* v, size_t n) { std::memcpy(p, v, n), p += n; };
  uint32_t zero = 0;
  int64_t pairs = d.pairs();
  put(kMagic, 8), put(&kVersion, 4), put(&zero, 4), put(&d.users, 8), put(&d.items, 8), put(&pairs, 8);
  for (int64_t u = 0; u < d.users; ++u)
    for (int64_t k = d.user_begin[size_t(u)]; k < d.user_begin[size_t(u) + 1]; ++k) {
      int32_t uu = int32_t(u);
      put(&uu, 4), put(&d.item[size_t(k)], 4);
    }
  return buf;
}

Ml20m parse_ml20m_cache(std::string_view b, const std::string& source) {
  if (b.size() < kCacheHeader || std::memcmp(b.data(), kMagic, 8) != 0)
    throw DataFormatError(source, "not a ratings cache (bad magic)");
  uint32_t version;
  Ml20m d;
  int64_t pairs;
  std::memcpy(&version, b.data() + 8, 4);
  std::memcpy(&d.users, b.data() + 16, 8);
  std::memcpy(&d.items, b.data() + 24, 8);
  std::memcpy(&pairs, b.data() + 32, 8);
  if (version != kVersion)
    throw DataFormatError(source, "version " + std::to_string(version) + ", expected " + std::to_string(kVersion));
  // The record count must match the length exactly (compared by division, so a
  // huge header value cannot wrap around), and every user and item of a
  // converted set has a pair: nothing below allocates more than the input.
  const size_t records = (b.size() - kCacheHeader) / 8;
  if (pairs < 0 || (b.size() - kCacheHeader) % 8 != 0 || uint64_t(pairs) != records || d.users < 1 || d.items < 1 ||
      d.users > pairs || d.items > pairs || d.users > INT32_MAX || d.items > INT32_MAX)
    throw DataFormatError(source, "truncated or inconsistent header (" + std::to_string(b.size()) + " bytes, " +
                                      std::to_string(pairs) + " pairs, " + std::to_string(d.users) + " users, " +
                                      std::to_string(d.items) + " items)");
  d.item.resize(size_t(pairs));
  d.user_begin.assign(size_t(d.users) + 1, 0);
  const char* p = b.data() + kCacheHeader;
  int32_t prev = 0;
  for (int64_t k = 0; k < pairs; ++k, p += 8) {
    int32_t u, i;
    std::memcpy(&u, p, 4);
    std::memcpy(&i, p + 4, 4);
    if (u < prev || u >= d.users || i < 0 || i >= d.items)
      throw DataFormatError(source, "record " + std::to_string(k) + " out of order or out of range");
    prev = u;
    d.item[size_t(k)] = i;
    ++d.user_begin[size_t(u) + 1];
  }
  std::partial_sum(d.user_begin.begin(), d.user_begin.end(), d.user_begin.begin());
  return d;
}

}  // namespace milabench
