// Synthetic WMT16 in the real preprocessed layout (see wmt16.hpp).
//
// Shape of the data (what matters to the translator's compute):
//  - a joint BPE vocabulary of kWmt16VocabLines subwords, ~30% of them "xyz@@"
//    continuation pieces, listed most frequent first (as subword-nmt's get_vocab);
//  - subword frequencies Zipf-like (p(rank) ~ 1/(rank+2));
//  - English lengths log-normal with mean ~27 subwords and a long tail (about
//    12% of pairs exceed GNMT's 50-token training limit, as the real set);
//  - German length = English length x a log-normal ratio (median 1.05, sd 15%),
//    so the two sides are strongly correlated as in a real parallel corpus.
// Pairs are made in fixed chunks, each with its own seed, so any thread count
// writes byte-identical files.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>
#include <unordered_set>

#include "data/manifest.hpp"
#include "data/wmt16.hpp"
#include "results/atomic_write.hpp"
#include "sys/atomic_file.hpp"
#include "sys/cpus.hpp"

namespace milabench {
namespace {

constexpr int64_t kChunkPairs = 20000;

struct Lexicon {
  std::vector<std::string> tokens;  // rank order
  std::vector<bool> continues;      // ends with "@@"
  std::vector<double> cdf;          // Zipf cumulative weights
};

Lexicon make_lexicon(int64_t n, uint64_t seed) {
  Lexicon lx;
  std::mt19937_64 g(seed);
  std::unordered_set<std::string> seen;
  // Moses-escaped punctuation and a few short words lead a real vocabulary.
  for (const char* s : {".",  ",", "the", "&apos;s", "&quot;", "-",  "die", "der",   "und", "of",
                        "to", "(", ")",   ":",       "?",      "in", "a",   "und@@", "ist", "is"}) {
    if (int64_t(lx.tokens.size()) >= n) break;
    lx.tokens.emplace_back(s);
    seen.insert(s);
  }
  static const char kLetters[] = "eeeeeeeennnnnrrrrrsssssiiiiiittttaaaaahhhhdduulllcgmobwfkzpvjyxq";
  std::uniform_int_distribution<int> letter(0, int(sizeof kLetters) - 2), extra(0, 3);
  std::bernoulli_distribution cont(0.3), cap(0.12);
  while (int64_t(lx.tokens.size()) < n) {
    int64_t rank = int64_t(lx.tokens.size());
    int len = 1 + std::min(10, int(std::log2(double(rank) + 2) / 2) + extra(g));
    std::string t;
    for (int i = 0; i < len; ++i) t.push_back(kLetters[letter(g)]);
    if (cap(g)) t[0] = char(t[0] - 'a' + 'A');
    if (cont(g)) t += "@@";
    if (seen.insert(t).second) lx.tokens.push_back(std::move(t));
  }
  double total = 0;
  for (size_t r = 0; r < lx.tokens.size(); ++r) {
    lx.continues.push_back(lx.tokens[r].size() > 2 && lx.tokens[r].compare(lx.tokens[r].size() - 2, 2, "@@") == 0);
    total += 1.0 / (double(r) + 2.0);
    lx.cdf.push_back(total);
  }
  return lx;
}

struct Chunk {
  std::string en, de;
};

int clamp_len(double x) { return int(std::clamp(std::lround(x), 1L, 120L)); }

void append_sentence(std::string& out, int len, const Lexicon& lx, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(0.0, lx.cdf.back());
  for (int i = 0; i < len; ++i) {
    size_t r = size_t(std::upper_bound(lx.cdf.begin(), lx.cdf.end(), u(g)) - lx.cdf.begin());
    r = std::min(r, lx.tokens.size() - 1);
    if (i == len - 1)  // a sentence never ends inside a word
      while (lx.continues[r]) r = size_t(g() % lx.tokens.size());
    if (i) out.push_back(' ');
    out += lx.tokens[r];
  }
  out.push_back('\n');
}

Chunk make_chunk(int64_t pairs, uint64_t seed, const Lexicon& lx) {
  std::mt19937_64 g(seed);
  // mean of exp(N(mu, s)) = exp(mu + s^2/2) = 27
  const double s = 0.65, mu = std::log(27.0) - s * s / 2;
  std::lognormal_distribution<double> en_len(mu, s), ratio(std::log(1.05), 0.15);
  Chunk c;
  c.en.reserve(size_t(pairs) * 180);
  c.de.reserve(size_t(pairs) * 190);
  for (int64_t i = 0; i < pairs; ++i) {
    double le = en_len(g);
    append_sentence(c.en, clamp_len(le), lx, g);
    append_sentence(c.de, clamp_len(le * ratio(g)), lx, g);
  }
  return c;
}

// Writes `pairs` pairs to the two files, chunk k seeded from (seed, stream, k).
void write_pairs(const std::string& en_path, const std::string& de_path, int64_t pairs, uint64_t seed, uint64_t stream,
                 unsigned threads, const Lexicon& lx) {
  AtomicFile en(en_path), de(de_path);  // whole or not at all (sys/atomic_file.hpp)
  const int64_t nchunks = (pairs + kChunkPairs - 1) / kChunkPairs;
  for (int64_t first = 0; first < nchunks; first += threads) {
    int64_t wave = std::min<int64_t>(threads, nchunks - first);
    std::vector<Chunk> out(static_cast<size_t>(wave));
    std::vector<std::thread> pool;
    for (int64_t w = 0; w < wave; ++w)
      pool.emplace_back([&, w] {
        int64_t k = first + w;
        int64_t n = std::min(kChunkPairs, pairs - k * kChunkPairs);
        out[size_t(w)] = make_chunk(n, seed * 0x9E3779B97F4A7C15ULL + (stream << 40) + uint64_t(k), lx);
      });
    for (auto& t : pool) t.join();
    for (const auto& c : out) {
      en.write(c.en);
      de.write(c.de);
    }
  }
  en.commit();
  de.commit();
}

}  // namespace

void generate_wmt16(const std::string& dataroot, const Wmt16GenOptions& opt) {
  if (!(opt.scale > 0 && opt.scale <= 1)) throw std::invalid_argument("wmt16: --scale must be in (0, 1]");
  if (opt.vocab_lines < 32) throw std::invalid_argument("wmt16: vocabulary needs at least 32 entries");
  const std::string dir = dataroot + "/wmt16";
  std::filesystem::create_directories(dir);
  unsigned threads = opt.threads ? opt.threads : static_cast<unsigned>(usable_cpu_count());
  const int64_t train = std::max<int64_t>(1, std::llround(double(kWmt16TrainPairs) * opt.scale));
  const int64_t test = std::max<int64_t>(1, std::llround(double(kWmt16TestPairs) * opt.scale));

  Lexicon lx = make_lexicon(opt.vocab_lines, opt.seed);
  std::string vocab;
  for (const auto& t : lx.tokens) vocab += t + "\n";
  write_text_atomic(dir + "/" + kWmt16Vocab, vocab);
  write_pairs(dir + "/" + kWmt16TrainEn, dir + "/" + kWmt16TrainDe, train, opt.seed, 1, threads, lx);
  write_pairs(dir + "/" + kWmt16TestEn, dir + "/" + kWmt16TestDe, test, opt.seed, 2, threads, lx);
  record_manifest(dataroot, "wmt16",
                  {{"synthetic", true},
                   {"generator", "milarun"},
                   {"scale", opt.scale},
                   {"train_pairs", train},
                   {"test_pairs", test},
                   {"vocab_size", opt.vocab_lines + 4},
                   {"files", 5},
                   {"layout", "wmt16/{train.tok.clean,newstest2014.tok}.bpe.32000.{en,de}, vocab.bpe.32000"}});
}

}  // namespace milabench
