// Hostile profile text found by fuzz_profile: one clear ProfileError line.
#include <gtest/gtest.h>

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
