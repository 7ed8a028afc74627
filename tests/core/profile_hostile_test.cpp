// Hostile profile text (found by fuzz_profile, or a valid profile with one key
// broken): one clear ProfileError line.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/profile.hpp"

TEST(ProfileHostileInput, NumberBeyondDoubleIsAProfileErrorNamingTheFile) {
  try {
    milabench::parse_profile(R"({"t": {"experiment": "e", "arguments": {"--n": 5e308}}})", "profiles/x.json");
    FAIL() << "expected ProfileError";
  } catch (const milabench::ProfileError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("profiles/x.json: ", 0), 0u) << what;
    EXPECT_NE(what.find("5e308"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

namespace {

// profiles/cpu.json with one key replaced (a JSON pointer) by a bad value.
std::string cpu_profile_with(const std::string& pointer, const nlohmann::ordered_json& value) {
  const char* src = std::getenv("MILABENCH_SOURCE");
  std::ifstream in(std::string(src ? src : ".") + "/profiles/cpu.json");
  nlohmann::ordered_json p = nlohmann::ordered_json::parse(in);
  p[nlohmann::ordered_json::json_pointer(pointer)] = value;
  return p.dump();
}

}  // namespace

// Every key of a profile with a wrong type or range: one ProfileError line
// naming the file, the test and the key; never another exception type.
TEST(ProfileHostileInput, EachWrongKeyIsOneLineNamingFileTestAndKey) {
  using nlohmann::ordered_json;
  struct Case {
    std::string pointer;
    ordered_json value;
    std::string expect;  // in the message
  };
  const std::vector<Case> cases = {
      {"/toy_reg", 5, "test \"toy_reg\" must be a JSON object"},
      {"/toy_reg/experiment", 7, "test \"toy_reg\" has no \"experiment\" string"},
      {"/toy_reg/arguments", "--batch-size 4", "\"arguments\" must be an object"},
      {"/toy_reg/arguments/--batch-size", ordered_json::array({1, 2}), "argument \"--batch-size\" must be a string"},
      {"/toy_reg/arguments/--batch-size", ordered_json::object(), "not an object"},
      {"/toy_reg/arguments/batch-size", 4, "argument \"batch-size\" is not a flag"},
      {"/toy_reg/prepare", "sync", "\"prepare\" must be a list of strings"},
      {"/toy_reg/prepare", ordered_json::array({1}), "\"prepare\" must be a list of strings"},
      {"/toy_reg/exec_prefix", true, "\"exec_prefix\" must be a list of strings"},
      {"/toy_reg/partition_scheme", "per-gpu", "\"partition_scheme\" must be an object"},
      {"/*/partition_scheme/type", 3, "unknown partition_scheme type \"3\""},
      {"/*/partition_scheme/type", "per-cpu", "unknown partition_scheme type \"per-cpu\""},
      {"/*/partition_scheme/cgroup", ordered_json::array({"cpuset"}), "\"cgroup\" must be a string"},
      {"/toy_reg/timeout", -1, "\"timeout\" must be a positive number of seconds"},
      {"/toy_reg/timeout", 0, "\"timeout\" must be a positive number of seconds"},
      {"/toy_reg/timeout", "1h", "\"timeout\" must be a positive number of seconds"},
      {"/*", ordered_json::array(), "test \"*\" (defaults) must be a JSON object"},
  };
  for (const auto& c : cases) {
    const std::string text = cpu_profile_with(c.pointer, c.value);
    try {
      milabench::parse_profile(text, "profiles/broken.json");
      ADD_FAILURE() << c.pointer << " = " << c.value.dump() << ": accepted";
    } catch (const milabench::ProfileError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("profiles/broken.json: ", 0), 0u) << what;
      EXPECT_NE(what.find(c.expect), std::string::npos) << c.pointer << ": " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.pointer << " = " << c.value.dump() << ": not a ProfileError: " << e.what();
    }
  }
  // The unbroken file parses (so each failure above is the one key's doing).
  // (one test per entry of the file but the "*" defaults: the count comes from the profile, not a literal)
  const std::string text = cpu_profile_with("/toy_reg/timeout", 60);
  const auto raw = nlohmann::json::parse(text);
  EXPECT_EQ(milabench::parse_profile(text, "profiles/cpu.json").tests.size(), raw.size() - raw.count("*"));
  EXPECT_GT(raw.size(), 1u);
}
