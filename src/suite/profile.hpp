// Reading benchmark profiles (JSON) and mapping their arguments to argv words.
#pragma once
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "results/argument_words.hpp"

namespace milabench {

// Any problem with a profile file; what() is one line naming the file
// (and the test, or line:column for malformed JSON).
struct ProfileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class PartitionType { PerGpu, GpuProgression };

// One test of a profile, after the "*" defaults have been merged in.
// The longest wall-clock limit a test may ask for (30 days): past it, the
// limit is nonsense (and a deadline computed from it would overflow).
constexpr double kMaxTimeoutSeconds = 30 * 24 * 3600.0;

struct TestSpec {
  std::string name;                                                     // key in the profile, e.g. "vae"
  std::string experiment;                                               // e.g. "milarun.models.vae:main"
  nlohmann::ordered_json arguments = nlohmann::ordered_json::object();  // {"--flag": value}
  std::vector<std::string> prepare;                                     // shell commands, run with /bin/sh -c
  std::vector<std::string> exec_prefix;                                 // argv words put before the command
  PartitionType partition = PartitionType::PerGpu;
  std::string cgroup;         // template, e.g. "student{CUDA_VISIBLE_DEVICES}"
  double timeout_s = 3600.0;  // wall-clock limit per process, seconds
};

struct Profile {
  std::string path;
  std::string suite;            // file stem: "standard" for profiles/standard.json
  std::vector<TestSpec> tests;  // in file order, "*" excluded
};

// Deep merge: objects merge key by key recursively, `over` wins elsewhere.
nlohmann::ordered_json merge_defaults(const nlohmann::ordered_json& defaults, const nlohmann::ordered_json& over);

// Parses `text` as the profile stored at `path` (path is used for the suite
// name and messages). Throws ProfileError.
Profile parse_profile(const std::string& text, const std::string& path);

// Reads and parses the file. Throws ProfileError (also when unreadable).
Profile load_profile(const std::string& path);

// Names of the tests, in file order.
std::vector<std::string> profile_test_names(const Profile& p);

// Command-line form of one argument value: numbers in the shortest exact form
// (20000000, 0.1, 21.8), strings as-is, other JSON dumped. Booleans give
// "true"/"false" here; map_arguments decides bare flag / omission.
std::string argument_value_string(const nlohmann::ordered_json& v);

// argv words for `args`: true -> "--flag", false/null -> omitted, otherwise
// "--flag" "value". A flag that appears in `extra` (as "--flag" or
// "--flag=...") is dropped so the extra arguments override it. `extra` is
// not appended here.
std::vector<std::string> map_arguments(const nlohmann::ordered_json& args, const std::vector<std::string>& extra);

}  // namespace milabench
