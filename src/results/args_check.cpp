#include "results/args_check.hpp"

#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "results/input_checks.hpp"

namespace milabench {

std::string encode_args_check_requests(const std::vector<ArgsCheckRequest>& tests) {
  nlohmann::json batch = nlohmann::json::array();
  for (const auto& t : tests)
    batch.push_back({{"test", t.test}, {"experiment", t.experiment}, {"arguments", t.arguments}});
  return batch.dump();
}

std::vector<ArgsCheckRequest> decode_args_check_requests(const std::string& text) {
  const nlohmann::json tests = nlohmann::json::parse(text, nullptr, false);
  if (!tests.is_array()) throw std::invalid_argument("--batch is not a JSON list");
  std::vector<ArgsCheckRequest> out;
  for (const auto& t : tests) {
    if (!t.is_object() || !t.value("test", nlohmann::json()).is_string() ||
        !t.value("experiment", nlohmann::json()).is_string() || !t.value("arguments", nlohmann::json()).is_array())
      throw std::invalid_argument(R"(--batch entries are {"test", "experiment", "arguments"})");
    ArgsCheckRequest r{t["test"].get<std::string>(), t["experiment"].get<std::string>(), {}};
    for (const auto& w : t["arguments"]) r.arguments.push_back(w.is_string() ? w.get<std::string>() : w.dump());
    out.push_back(std::move(r));
  }
  return out;
}

std::string encode_args_check_problem(const ArgsCheckProblem& p) {
  // terminal_safe turns '\t' and '\n' into '?': a field can neither split nor end a line.
  return terminal_safe(p.test) + "\t" + terminal_safe(p.problem) + "\n";
}

std::vector<ArgsCheckProblem> decode_args_check_problems(const std::string& text) {
  std::vector<ArgsCheckProblem> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto tab = line.find('\t');
    if (tab != std::string::npos) out.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return out;
}

}  // namespace milabench
