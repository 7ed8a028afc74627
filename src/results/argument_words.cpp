#include "results/argument_words.hpp"

#include <regex>

namespace milabench {

std::string normalize_number_word(const std::string& word) {
  static const std::regex numeric("^-?[0-9][0-9_]*(\\.[0-9_]+)?([eE][-+]?[0-9]+)?$");
  if (word.find('_') == std::string::npos || !std::regex_match(word, numeric)) return word;
  std::string out;
  for (char c : word)
    if (c != '_') out += c;
  return out;
}

}  // namespace milabench
