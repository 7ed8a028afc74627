#pragma once
// Stand-ins: what a run used in place of the original's environment or data.
// A result made on one measures different work from the original's, so its
// rate is not comparable with the 2020 baselines. The one owner of the
// names, the result key and their wording: writers (training/session via
// the dataset provenance) and readers (results/result_record, the report)
// go through here. The report shows them beside the test's numbers, as it
// shows opt-in shortcuts (metrics.shortcuts).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace milabench {

// Result key: a list of stand-in names, [] when the run used the original's
// environment and data (docs/result-format.md).
inline constexpr const char* kStandInsKey = "stand_ins";

// atari: our C++ Pong-like game instead of the Arcade Learning Environment's Pong.
inline constexpr const char* kPongLikeGame = "pong_like_game";
// A dataset the original downloads (fetch/dataset_table has files for it),
// generated here in its format instead (MANIFEST.json: "synthetic": true).
inline constexpr const char* kGeneratedData = "generated_data";

// The stand-ins a dataset provenance declares: its "stand_in" string (one of
// the names above), as a list; [] when it has none.
std::vector<std::string> stand_ins_of_provenance(const nlohmann::json& provenance);

// A result document's "stand_ins": its string entries, in order; [] when
// absent or not a list.
std::vector<std::string> read_stand_ins(const nlohmann::json& result);

// What a name means, for the report: "a C++ Pong-like game, not the Arcade
// Learning Environment"; an unknown name is returned as it is.
std::string stand_in_phrase(const std::string& name);

}  // namespace milabench
