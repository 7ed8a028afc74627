// Text dataset tokenisation without files or torch: WikiText-2's
// whitespace words -> ids (PyTorch's word_language_model data.Corpus) and
// WMT16's BPE vocabulary and sentence lines (the original's seq2seq
// Tokenizer). data/wikitext2.cpp and data/wmt16.cpp read the files and call
// these; fuzz/text_fuzz.cpp feeds them arbitrary bytes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/format_error.hpp"

namespace milabench {

// ---- WikiText-2 ----

// Word <-> id table, ids given in order of first appearance (as the example's
// data.Dictionary).
class Dictionary {
 public:
  // Returns the id of `word`, adding it when new.
  int32_t add(std::string_view word);
  // -1 when unknown.
  int32_t find(std::string_view word) const;
  const std::string& word(int32_t id) const { return words_.at(size_t(id)); }
  int64_t size() const { return int64_t(words_.size()); }

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, int32_t> index_;
};

// Appends the ids of `text`'s tokens (with "<eos>" after every line, the last
// one included even without a final newline) to `out`, growing `dict`. Any
// bytes are accepted (tokens are split on ASCII blanks); never throws but
// std::bad_alloc.
void tokenize_text(std::string_view text, Dictionary& dict, std::vector<int32_t>& out);

// ---- WMT16 (BPE) ----

// Special tokens as the original's seq2seq/data/config.py (ids 0..3, before
// the vocabulary file's entries). The EOS spelling "<\s>" is the original's.
constexpr int32_t kPad = 0, kUnk = 1, kBos = 2, kEos = 3;
inline const char* const kSpecialTokens[] = {"<pad>", "<unk>", "<s>", "<\\s>"};

// Token <-> id map: the 4 specials, then one id per vocabulary line (as the
// original's Tokenizer: a later duplicate line wins; unknown tokens map to UNK).
class Vocabulary {
 public:
  Vocabulary() = default;
  Vocabulary(const Vocabulary&) = delete;  // index_ holds views into tokens_
  Vocabulary& operator=(const Vocabulary&) = delete;
  Vocabulary(Vocabulary&&) = default;
  Vocabulary& operator=(Vocabulary&&) = default;

  // One token per line of `text`, stripped of ASCII blanks. Throws
  // DataFormatError naming `source` when there is no line at all.
  static Vocabulary parse(std::string_view text, const std::string& source);

  int32_t size() const { return int32_t(tokens_.size()); }
  int32_t id(std::string_view token) const;
  const std::string& token(int32_t id) const { return tokens_.at(size_t(id)); }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string_view, int32_t> index_;
};

// Sentences as ids, each BOS ... EOS, stored back to back.
struct TokenLines {
  std::vector<int32_t> ids;
  std::vector<int64_t> offsets{0};  // line i is ids[offsets[i], offsets[i+1])
  int64_t size() const { return int64_t(offsets.size()) - 1; }
  int32_t length(int64_t i) const { return int32_t(offsets[size_t(i) + 1] - offsets[size_t(i)]); }
  const int32_t* line(int64_t i) const { return ids.data() + offsets[size_t(i)]; }
};

// Parses the lines of `text` (each "\n"-terminated except maybe the last)
// into BOS ids EOS, subwords split on ASCII blanks. Any bytes are accepted.
TokenLines parse_bpe_lines(std::string_view text, const Vocabulary& vocab);

}  // namespace milabench
