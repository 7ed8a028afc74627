// WMT16 English–German as the original milabench's rnn_translator reads it
// (MLPerf's GNMT preprocessing: Moses tokeniser, clean-corpus 1..80 words,
// shared BPE with 32 000 merges). Layout under DATAROOT/wmt16/:
//   train.tok.clean.bpe.32000.{en,de}   one sentence a line, BPE subwords
//                                       separated by spaces, "@@" ending a
//                                       subword that continues the word
//   newstest2014.tok.bpe.32000.{en,de}  the test set, same format
//   vocab.bpe.32000                     one subword a line, most frequent first
// (The original's download script keeps the raw archives in DATAROOT/wmt16/data;
// the reader also accepts the processed files there.)
// No torch here: the reader gives flat token-id arrays, the sampler index lists.
// Vocabulary, TokenLines and the line parser are in data/text_tokens.hpp.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/dataset.hpp"
#include "data/text_tokens.hpp"

namespace milabench {

constexpr const char* kWmt16Vocab = "vocab.bpe.32000";
constexpr const char* kWmt16TrainEn = "train.tok.clean.bpe.32000.en";
constexpr const char* kWmt16TrainDe = "train.tok.clean.bpe.32000.de";
constexpr const char* kWmt16TestEn = "newstest2014.tok.bpe.32000.en";
constexpr const char* kWmt16TestDe = "newstest2014.tok.bpe.32000.de";

// Real-set sizes the generator reproduces at --scale 1.
constexpr int64_t kWmt16TrainPairs = 4500000;  // ~4.5M pairs after cleaning
constexpr int64_t kWmt16TestPairs = 3003;      // newstest2014
constexpr int64_t kWmt16VocabLines = 32313;    // + 4 specials = 32 317 ids

// DATAROOT/wmt16, or DATAROOT/wmt16/data when only that holds the vocabulary.
std::string wmt16_dir(const std::string& dataroot);

// The vocabulary file (Vocabulary::parse). Throws std::runtime_error naming
// `path` and the command that makes the data when it is missing or has no entries.
Vocabulary load_vocabulary(const std::string& path, const std::string& dataroot);

struct ParallelOptions {
  int32_t min_length = 0;   // keep pairs whose both sides have min..max ids,
  int32_t max_length = 50;  // BOS and EOS included (GNMT's --max-length-train)
  int64_t max_size = 0;     // read at most this many lines (0 = all)
  unsigned threads = 1;     // parsing threads
};

struct ParallelCorpus {
  TokenLines src, tgt;          // en, de after the length filter
  std::vector<int32_t> lengths; // src + tgt length per pair (the sampler's key)
  int64_t pairs_read = 0;       // before the filter
};

// Reads and filters an aligned pair of files. Throws std::runtime_error naming
// the file when one is missing or their line counts differ.
ParallelCorpus read_parallel(const std::string& src_path, const std::string& tgt_path,
                             const Vocabulary& vocab, const ParallelOptions& opt,
                             const std::string& dataroot);

// The training pairs and vocabulary from DATAROOT (wmt16_dir).
struct Wmt16 {
  Vocabulary vocab;
  ParallelCorpus train;
};
Wmt16 read_wmt16_train(const std::string& dataroot, const ParallelOptions& opt);

struct Wmt16GenOptions {
  double scale = 1.0;                      // fraction of the real pair counts
  unsigned threads = 0;                    // 0 = hardware threads
  int64_t vocab_lines = kWmt16VocabLines;  // smaller only in tests
  uint64_t seed = 2016;
};

// Writes the layout above with synthetic text: a Zipf-distributed subword
// vocabulary with "@@" continuation pieces, sentence lengths log-normal
// (mean ~27 subwords, long tail) with German lengths correlated to English.
// Same output for any thread count. Atomic per file; records the MANIFEST.
void generate_wmt16(const std::string& dataroot, const Wmt16GenOptions& opt);

bool wmt16_present(const std::string& dataroot);
nlohmann::json wmt16_provenance(const std::string& dataroot);

}  // namespace milabench
