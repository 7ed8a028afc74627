#include "data/wikitext2.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>
#include <unordered_set>

#include "data/data_error.hpp"
#include "data/manifest.hpp"
#include "results/atomic_write.hpp"
#include "sys/cpus.hpp"
#include "sys/read_file.hpp"

namespace milabench {
namespace {

const char* const kWiki2Splits[] = {"train", "valid", "test"};
constexpr int64_t kRealTokens[] = {2088628, 217646, 245569};  // per split, <eos> included
constexpr int kChunks = 64;                                   // generation unit; fixed so output ignores thread count
constexpr int kCoverStride = 50;                              // every 50th train word is the next not-yet-covered word
constexpr double kZipfShift = 2.0;                            // p(rank) ∝ 1/(rank + 2): "the" ≈ 5% as in WikiText-2

std::string split_path(const std::string& dataroot, int split) {
  return wiki2_dir(dataroot) + "/wiki." + kWiki2Splits[split] + ".tokens";
}

// The generator's word list: frequent WikiText tokens first, then distinct
// consonant-vowel pseudo-words; 33 277 entries (the vocabulary less <eos>).
std::vector<std::string> word_list() {
  static const char* head[] = {"the",    ",",    ".",      "of",    "<unk>", "and",  "in",    "to",    "a",     "=",
                               "\"",     "was",  "The",    "@-@",   "'s",    "that", "as",    "for",   "with",  "by",
                               "on",     "is",   "(",      ")",     "his",   "at",   "from",  "it",    "he",    "an",
                               "were",   "had",  "which",  "be",    "are",   "@,@",  "this",  "first", "their", "In",
                               "not",    "also", "but",    "its",   "or",    "one",  "after", "two",   "@.@",   ";",
                               "her",    "have", "who",    "they",  "been",  "has",  "she",   "new",   ":",     "A",
                               "time",   "He",   "during", "would", "all",   "into", "over",  "more",  "there", "other",
                               "season", "game", "This",   "three", "most",  "when", "later", "only",  "up",    "out"};
  const std::string consonants = "bcdfghjklmnprstvwxyz", vowels = "aeiou";
  const size_t n = size_t(kWiki2Vocabulary - 1);
  std::vector<std::string> words(std::begin(head), std::end(head));
  std::unordered_set<std::string> seen(words.begin(), words.end());
  for (size_t k = 0; words.size() < n; ++k) {
    std::string w;
    size_t v = k;
    for (int digits = 0; digits < 2 || v > 0; ++digits, v /= 100) {
      w += consonants[(v % 100) / 5];
      w += vowels[(v % 100) % 5];
    }
    if (seen.insert(w).second) words.push_back(std::move(w));
  }
  return words;
}

struct Generator {
  std::vector<std::string> words;
  std::vector<double> cdf;  // Zipf-Mandelbrot over word ranks

  Generator() : words(word_list()) {
    cdf.resize(words.size());
    double acc = 0;
    for (size_t r = 0; r < words.size(); ++r) cdf[r] = acc += 1.0 / (double(r) + kZipfShift);
    for (auto& c : cdf) c /= acc;
  }

  size_t zipf(std::mt19937_64& g) const {
    double u = std::uniform_real_distribution<double>(0, 1)(g);
    return std::min(size_t(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin()), cdf.size() - 1);
  }

  // Text of exactly `budget` tokens (each line's <eos> counted). Train chunks
  // also cover the word ranks [cover, cover_end) every kCoverStride words.
  std::string chunk(int64_t budget, uint64_t seed, size_t cover, size_t cover_end) const {
    std::mt19937_64 g(seed);
    std::lognormal_distribution<double> para_len(std::log(110.0), 0.6);
    std::uniform_real_distribution<double> u01(0, 1);
    std::string out;
    int64_t words_done = 0;
    auto word = [&]() -> const std::string& {
      bool cover_now = cover < cover_end && words_done++ % kCoverStride == 0;
      return words[cover_now ? cover++ : zipf(g)];
    };
    bool blank_next = false;
    while (budget > 0) {
      out += ' ';
      if (blank_next || budget == 1) {  // " \n": just <eos>
        budget -= 1;
        blank_next = false;
      } else if (u01(g) < 0.25 && budget >= 6) {  // " = = Title words = = "
        int level = 1 + int(g() % 3), n = 1 + int(g() % 4);
        n = int(std::min<int64_t>(n, budget - 1 - 2 * level));
        if (n < 1) level = 1, n = int(budget - 3);
        for (int i = 0; i < level; ++i) out += "= ";
        for (int i = 0; i < n; ++i) out += word() + ' ';
        for (int i = 0; i < level; ++i) out += "= ";
        budget -= 2 * level + n + 1;
        blank_next = true;
      } else {  // paragraph
        int64_t n = std::clamp<int64_t>(std::llround(para_len(g)), 5, 700);
        n = std::min(n, budget - 1);
        for (int64_t i = 0; i < n; ++i) out += word() + ' ';
        budget -= n + 1;
        blank_next = true;
      }
      out += '\n';
    }
    return out;
  }
};

unsigned thread_count(unsigned requested) {
  const auto hw = static_cast<unsigned>(usable_cpu_count());
  return std::min<unsigned>(kChunks, requested ? requested : hw);
}

[[noreturn]] void bad_file(const std::string& path, const std::string& what, const std::string& dataroot) {
  throw DataError("wikitext-2 file " + path + ": " + what + "; run: " + dataset_remake_command("wiki2", dataroot));
}

}  // namespace

std::string wiki2_dir(const std::string& dataroot) { return dataroot + "/wikitext-2"; }

Wiki2Corpus read_wiki2(const std::string& dataroot) {
  Wiki2Corpus c;
  std::vector<int32_t>* outs[] = {&c.train, &c.valid, &c.test};
  for (int s = 0; s < 3; ++s) {
    std::string path = split_path(dataroot, s);
    std::string why;
    const auto text = read_whole_file(path, &why);
    if (!text) bad_file(path, why, dataroot);
    tokenize_text(*text, c.dictionary, *outs[s]);
    if (outs[s]->empty()) bad_file(path, "empty (no token)", dataroot);
  }
  return c;
}

void generate_wiki2(const std::string& dataroot, const DatasetOptions& opts) {
  if (!(opts.scale > 0 && opts.scale <= 1)) throw std::invalid_argument("wiki2: --scale must be in (0, 1]");
  std::filesystem::create_directories(wiki2_dir(dataroot));
  const Generator gen;
  const unsigned nthreads = thread_count(opts.threads);
  nlohmann::json tokens = nlohmann::json::object();
  for (int s = 0; s < 3; ++s) {
    const int64_t total = std::max<int64_t>(64, std::llround(double(kRealTokens[s]) * opts.scale));
    std::vector<std::string> parts(kChunks);
    std::atomic<int> next{0};
    auto work = [&] {
      for (int k; (k = next++) < kChunks;) {
        int64_t budget = total / kChunks + (k == kChunks - 1 ? total % kChunks : 0);
        size_t n = gen.words.size();
        size_t cover = s == 0 ? n * size_t(k) / kChunks : 0, cover_end = s == 0 ? n * size_t(k + 1) / kChunks : 0;
        parts[size_t(k)] =
            gen.chunk(budget, 0x5157A2ull * 1000 + uint64_t(s) * kChunks + uint64_t(k), cover, cover_end);
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < nthreads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    std::string text;
    for (auto& p : parts) text += p;
    write_text_atomic(split_path(dataroot, s), text);
    tokens[kWiki2Splits[s]] = total;
  }
  record_manifest(dataroot, "wiki2",
                  {{"synthetic", true},
                   {"generator", "milarun"},
                   {"scale", opts.scale},
                   {"files", 3},
                   {"tokens", tokens},
                   {"layout", "wikitext-2/wiki.{train,valid,test}.tokens"}});
}

bool wiki2_present(const std::string& dataroot) {
  struct stat st {};
  for (int s = 0; s < 3; ++s)
    if (::stat(split_path(dataroot, s).c_str(), &st) != 0) return false;
  return true;
}

nlohmann::json wiki2_provenance(const std::string& dataroot) { return dataset_provenance(dataroot, "wiki2"); }

}  // namespace milabench
