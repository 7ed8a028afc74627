// launch/openmp_wait: milarun's runs spin briefly unless the user chose a wait.
#include "launch/openmp_wait.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using milabench::set_default_openmp_spin;

namespace {

// Clears both variables for a test and puts back what was there.
struct OpenmpEnv {
  std::string saved[2];
  bool had[2] = {false, false};
  static constexpr const char* kNames[2] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"};
  OpenmpEnv() {
    for (int i = 0; i < 2; ++i) {
      if (const char* v = std::getenv(kNames[i])) had[i] = true, saved[i] = v;
      ::unsetenv(kNames[i]);
    }
  }
  ~OpenmpEnv() {
    for (int i = 0; i < 2; ++i) had[i] ? (void)::setenv(kNames[i], saved[i].c_str(), 1) : (void)::unsetenv(kNames[i]);
  }
};

}  // namespace

TEST(OpenmpWait, WithoutAChoiceTheRunSpinsShortly) {
  OpenmpEnv env;
  EXPECT_TRUE(set_default_openmp_spin());
  ASSERT_NE(std::getenv("GOMP_SPINCOUNT"), nullptr);
  EXPECT_STREQ(std::getenv("GOMP_SPINCOUNT"), milabench::kOpenmpSpinCount);
}

TEST(OpenmpWait, AWaitPolicyTheUserSetIsKept) {
  OpenmpEnv env;
  ::setenv("OMP_WAIT_POLICY", "ACTIVE", 1);
  EXPECT_FALSE(set_default_openmp_spin());
  EXPECT_EQ(std::getenv("GOMP_SPINCOUNT"), nullptr);
  EXPECT_STREQ(std::getenv("OMP_WAIT_POLICY"), "ACTIVE");
}

TEST(OpenmpWait, ASpinCountTheUserSetIsKept) {
  OpenmpEnv env;
  ::setenv("GOMP_SPINCOUNT", "300000", 1);
  EXPECT_FALSE(set_default_openmp_spin());
  EXPECT_STREQ(std::getenv("GOMP_SPINCOUNT"), "300000");
}
