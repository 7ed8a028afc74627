#include "results/json_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "results/input_checks.hpp"

namespace milabench {

DuplicateKeyError::DuplicateKeyError(const std::string& k, const std::string& w)
    : std::runtime_error(
          w.empty() ? fmt::format("key \"{}\" appears twice — keep one", terminal_safe(k))
                    : fmt::format("key \"{}\" appears twice in \"{}\" — keep one", terminal_safe(k), terminal_safe(w))),
      key(k),
      where(w) {}

nlohmann::json parse_json_unique_keys(const std::string& text) {
  struct Level {
    std::vector<std::string> keys;
    std::string key;  // the key whose value is being read
  };
  std::vector<Level> stack;
  auto path = [&] {
    std::string p;
    for (std::size_t i = 0; i + 1 < stack.size(); ++i) p += (p.empty() ? "" : ".") + stack[i].key;
    return p;
  };
  auto cb = [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (ev == E::object_start || ev == E::array_start) {
      stack.push_back({});
    } else if (ev == E::object_end || ev == E::array_end) {
      if (!stack.empty()) stack.pop_back();
    } else if (ev == E::key && !stack.empty()) {
      Level& top = stack.back();
      const std::string key = parsed.get<std::string>();
      if (std::find(top.keys.begin(), top.keys.end(), key) != top.keys.end()) throw DuplicateKeyError(key, path());
      top.keys.push_back(key);
      top.key = key;
    }
    return true;
  };
  return nlohmann::json::parse(text, cb);
}

namespace {

// Edits (insert, delete, substitute, swap two neighbours) from a to b, case ignored.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string nearest_known(const std::string& key, const std::vector<std::string>& known) {
  if (key.size() > 256) return "";  // not a typo of any key
  std::string best;
  std::size_t best_d = 0;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(key, k);
    if (best.empty() || d < best_d) best = k, best_d = d;
  }
  // A typo: at most 2 edits, and fewer than half the word.
  return !best.empty() && best_d <= 2 && best_d * 2 < std::max(key.size(), best.size()) ? best : "";
}

std::string unknown_key_text(const std::string& key, const std::vector<std::string>& known) {
  std::string shown = terminal_safe(key.size() > 60 ? key.substr(0, 60) + "..." : key);
  if (std::string near = nearest_known(key, known); !near.empty())
    return fmt::format("unknown key \"{}\": did you mean \"{}\"?", shown, near);
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  return fmt::format("unknown key \"{}\" (known keys: {})", shown, list);
}

}  // namespace milabench
