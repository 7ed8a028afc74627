// WikiText-2 as the original's milarun.datasets:wiki2 reads it (the layout of
// wikitext-2-v1.zip): DATAROOT/wikitext-2/wiki.{train,valid,test}.tokens, UTF-8 text, tokens separated by
// whitespace, one paragraph (or heading, or blank) per line. No torch here.
// Tokenisation (Dictionary, tokenize_text) is in data/text_tokens.hpp.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/dataset.hpp"
#include "data/text_tokens.hpp"

namespace milabench {

// The example's data.Corpus: train, valid, test tokenised in that order into
// one dictionary; each line's whitespace-separated words followed by "<eos>".
struct Wiki2Corpus {
  Dictionary dictionary;
  std::vector<int32_t> train, valid, test;  // token ids
};

constexpr int64_t kWiki2Vocabulary = 33278;  // the real set's, <eos> and <unk> included

std::string wiki2_dir(const std::string& dataroot);

// Reads the three files. Throws std::runtime_error naming the file and the
// command that makes the data when one is missing, unreadable or has no token.
Wiki2Corpus read_wiki2(const std::string& dataroot);

// Writes synthetic train/valid/test files of 2 088 628 / 217 646 / 245 569
// tokens (each `<eos>` counted) times `scale`, at least 64 each: Zipf-like
// word frequencies over a 33 277-word list (a vocabulary of 33 278 with
// `<eos>` at full scale: every word appears in train at least once), lines
// shaped like WikiText's (blank lines, " = heading = " lines, paragraphs of
// about a hundred tokens). Deterministic for a given scale whatever the
// thread count. Records the MANIFEST. Throws naming the path on I/O failure.
void generate_wiki2(const std::string& dataroot, const DatasetOptions& opts);

bool wiki2_present(const std::string& dataroot);
nlohmann::json wiki2_provenance(const std::string& dataroot);

}  // namespace milabench
