#include "results/stand_ins.hpp"

namespace milabench {

std::vector<std::string> stand_ins_of_provenance(const nlohmann::json& provenance) {
  if (!provenance.is_object() || !provenance.contains("stand_in") || !provenance["stand_in"].is_string()) return {};
  return {provenance["stand_in"].get<std::string>()};
}

std::vector<std::string> read_stand_ins(const nlohmann::json& result) {
  std::vector<std::string> out;
  if (!result.is_object() || !result.contains(kStandInsKey) || !result[kStandInsKey].is_array()) return out;
  for (const auto& s : result[kStandInsKey])
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

std::string stand_in_phrase(const std::string& name) {
  if (name == kPongLikeGame) return "a C++ Pong-like game, not the Arcade Learning Environment";
  if (name == kGeneratedData) return "generated data, not the dataset the original downloads";
  return name;
}

}  // namespace milabench
