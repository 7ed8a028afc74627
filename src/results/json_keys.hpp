// Keys of the JSON files a user writes (profiles, weights, baselines): a
// key given twice, and a misspelt key, are refused with one line instead of
// being dropped silently (docs/reliability.md).
#pragma once
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace milabench {

// A key that appears twice in one object; `where` is the path of that
// object's key ("" at the top level, else e.g. "standard.vae").
struct DuplicateKeyError : std::runtime_error {
  DuplicateKeyError(const std::string& key, const std::string& where);
  std::string key, where;
};

// Parses `text` as JSON, refusing a key that appears twice in one object.
// Throws DuplicateKeyError, or nlohmann's parse_error / out_of_range.
nlohmann::json parse_json_unique_keys(const std::string& text);

// The word of `known` closest to `key` (edit distance, case-insensitive),
// when it is close enough to be a typo of it; "" otherwise.
std::string nearest_known(const std::string& key, const std::vector<std::string>& known);

// 'unknown key "argumnets": did you mean "arguments"?', or without a close
// word 'unknown key "x" (known keys: a, b)'. Control bytes shown as '?'.
std::string unknown_key_text(const std::string& key, const std::vector<std::string>& known);

}  // namespace milabench
