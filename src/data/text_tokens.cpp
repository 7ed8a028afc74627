#include "data/text_tokens.hpp"

namespace milabench {
namespace {

// WikiText-2 splits words on blanks within a line (the line break is <eos>).
bool is_word_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
// The seq2seq Tokenizer's str.strip()/split() on ASCII blanks.
bool is_space(char c) { return is_word_space(c) || c == '\n'; }

}  // namespace

int32_t Dictionary::add(std::string_view word) {
  std::string key(word);
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  int32_t id = int32_t(words_.size());
  words_.push_back(key);
  index_.emplace(std::move(key), id);
  return id;
}

int32_t Dictionary::find(std::string_view word) const {
  auto it = index_.find(std::string(word));
  return it == index_.end() ? -1 : it->second;
}

void tokenize_text(std::string_view text, Dictionary& dict, std::vector<int32_t>& out) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    for (size_t i = pos; i < end;) {
      while (i < end && is_word_space(text[i])) ++i;
      size_t j = i;
      while (j < end && !is_word_space(text[j])) ++j;
      if (j > i) out.push_back(dict.add(text.substr(i, j - i)));
      i = j;
    }
    out.push_back(dict.add("<eos>"));
    pos = end + 1;
  }
}

Vocabulary Vocabulary::parse(std::string_view text, const std::string& source) {
  Vocabulary v;
  for (const char* s : kSpecialTokens) v.tokens_.emplace_back(s);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    size_t b = pos, e = end;  // strip(), as the original
    while (b < e && is_space(text[b])) ++b;
    while (e > b && is_space(text[e - 1])) --e;
    v.tokens_.emplace_back(text.substr(b, e - b));
    pos = end + 1;
  }
  if (v.tokens_.size() == 4) throw DataFormatError(source, "empty vocabulary");
  v.index_.reserve(v.tokens_.size() * 2);
  for (size_t i = 0; i < v.tokens_.size(); ++i) v.index_[v.tokens_[i]] = int32_t(i);
  return v;
}

int32_t Vocabulary::id(std::string_view token) const {
  auto it = index_.find(token);
  return it == index_.end() ? kUnk : it->second;
}

TokenLines parse_bpe_lines(std::string_view text, const Vocabulary& vocab) {
  TokenLines out;
  out.ids.reserve(text.size() / 5);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    out.ids.push_back(kBos);
    size_t i = pos;
    while (i < end) {
      while (i < end && is_space(text[i])) ++i;
      size_t j = i;
      while (j < end && !is_space(text[j])) ++j;
      if (j > i) out.ids.push_back(vocab.id(text.substr(i, j - i)));
      i = j;
    }
    out.ids.push_back(kEos);
    out.offsets.push_back(int64_t(out.ids.size()));
    pos = end + 1;
  }
  return out;
}

}  // namespace milabench
