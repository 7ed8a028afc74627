// sys/read_file and sys/splitmix: the one whole-file read (never throws for
// I/O) and the one seed mixer (the same bits everywhere).
#include "sys/read_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "scratch_dir.hpp"
#include "sys/splitmix.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using milabench::read_whole_file;

TEST(ReadWholeFile, GivesEveryByteOfTheFileNulsIncluded) {
  const fs::path p = fs::path(milabench::test::scratch_dir("read_file")) / "bytes.bin";
  const std::string bytes("a\0b\r\n\xff", 6);
  milabench::test::write_text(p, bytes);
  const auto got = read_whole_file(p.string());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, bytes);
}

// /proc files say size 0 and still hold bytes: read to the end, not to the size.
TEST(ReadWholeFile, AFileWhoseSizeIsZeroIsStillReadToTheEnd) {
  const auto got = read_whole_file("/proc/self/status");
  ASSERT_TRUE(got.has_value());
  EXPECT_NE(got->find("Pid:"), std::string::npos);
}

TEST(ReadWholeFile, AMissingFileIsNoValueWithAReason) {
  std::string why;
  EXPECT_FALSE(read_whole_file("/nonexistent/milabench/file.txt", &why).has_value());
  EXPECT_EQ(why, "missing or unreadable");
}

// Opening a folder succeeds on Linux and its first read fails (EISDIR): a
// reason, not an exception out of libstdc++'s filebuf.
TEST(ReadWholeFile, AFailedReadIsNoValueNotAnException) {
  std::string why;
  std::optional<std::string> got;
  EXPECT_NO_THROW(got = read_whole_file(milabench::test::scratch_dir("read_dir"), &why));
  EXPECT_FALSE(got.has_value());
  EXPECT_EQ(why, "read error");
}

// The published splitmix64 stream from seed 0 (Vigna's reference splitmix64.c).
TEST(Splitmix64, TheStreamFromSeedZeroIsTheReferenceOne) {
  uint64_t state = 0;
  EXPECT_EQ(milabench::splitmix64_next(state), 0xe220a8397b1dcdafull);
  EXPECT_EQ(milabench::splitmix64_next(state), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(milabench::splitmix64_next(state), 0x06c45d188009454full);
  EXPECT_EQ(state, 3 * milabench::kSplitmixGamma);
  EXPECT_EQ(milabench::splitmix64(0), 0xe220a8397b1dcdafull);
}
