// Fuzz target: the text tokenisers (data/text_tokens.hpp): WikiText-2's
// word ids and WMT16's BPE vocabulary + sentence lines. Contract: any bytes
// are tokenised without a crash or sanitizer report; every id is in range,
// every word is a non-empty run of non-blank bytes, every sentence is
// BOS ... EOS; an empty vocabulary throws DataFormatError naming the input.
// Input: the whole buffer as WikiText; up to the first NUL byte as the
// vocabulary file, the rest as the sentences.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/text_tokens.hpp"
#include "fuzz_contract.hpp"

namespace {

using milabench::fuzz::require;

void fuzz_wikitext(std::string_view text) {
  milabench::Dictionary dict;
  std::vector<int32_t> ids;
  milabench::tokenize_text(text, dict, ids);
  for (int32_t id : ids) require(id >= 0 && id < dict.size());
  for (int32_t id = 0; id < dict.size(); ++id) {
    const std::string& w = dict.word(id);
    require(!w.empty() && w.find_first_of(" \t\r\n\v\f") == std::string::npos);
    require(dict.find(w) == id);
  }
}

void fuzz_bpe(std::string_view vocab_text, std::string_view lines) {
  try {
    milabench::Vocabulary vocab = milabench::Vocabulary::parse(vocab_text, "fuzz/vocab.bpe.32000");
    milabench::TokenLines t = milabench::parse_bpe_lines(lines, vocab);
    require(t.offsets.front() == 0 && size_t(t.offsets.back()) == t.ids.size());
    for (int64_t i = 0; i < t.size(); ++i) {
      require(t.length(i) >= 2 && t.line(i)[0] == milabench::kBos && t.line(i)[t.length(i) - 1] == milabench::kEos);
    }
    for (int32_t id : t.ids) require(id >= 0 && id < vocab.size());
  } catch (const milabench::DataFormatError& e) {
    milabench::fuzz::check_error_message(e.what(), "fuzz/vocab.bpe.32000");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fuzz_wikitext(bytes);
  const size_t nul = bytes.find('\0');
  fuzz_bpe(bytes.substr(0, nul), nul == std::string_view::npos ? std::string_view() : bytes.substr(nul + 1));
  return 0;
}
