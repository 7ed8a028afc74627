#include "measure/progress.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace milabench;

TEST(Progress, LogModeWritesAtMostOneLinePerInterval) {
  std::ostringstream out;
  Progress p(out, "vae", "samples", 1000, /*live=*/false, /*log_interval_s=*/15.0);
  p.update(0.4, 100, 300.0, 0.25);   // first update is written
  p.update(10.0, 200, 200.0, 0.2);   // within 15 s: skipped
  p.update(16.0, 400, 100.0, {});    // written
  std::string s = out.str();
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 2) << s;
  EXPECT_NE(s.find("vae: 100/1000 samples (10%), 300.0/s, loss 0.25, elapsed 0s, ETA 3s"), std::string::npos) << s;
  EXPECT_NE(s.find("400/1000 samples (40%), 100.0/s, elapsed 16s, ETA 6s"), std::string::npos) << s;
}

TEST(Progress, LiveModeRedrawsOneLineAndEndsWithNewline) {
  std::ostringstream out;
  Progress p(out, "cart", "steps", 0, /*live=*/true);
  p.update(1.0, 10, 10.0, {});
  p.update(2.0, 20, 10.0, {});
  p.finish(2.4, 25);
  std::string s = out.str();
  EXPECT_EQ(std::count(s.begin(), s.end(), '\r'), 3) << s;
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 1) << s;
  EXPECT_EQ(s.find("ETA"), std::string::npos) << "no ETA without a max count";
  EXPECT_NE(s.find("cart: finished 25 steps in 2s"), std::string::npos) << s;
}

TEST(Progress, DurationFormats) {
  EXPECT_EQ(Progress::duration(42.2), "42s");
  EXPECT_EQ(Progress::duration(185), "3m05s");
  EXPECT_EQ(Progress::duration(3720), "1h02m");
  EXPECT_EQ(Progress::duration(-1), "?");
}
