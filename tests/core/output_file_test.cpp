// Issue 24 item 8: report --html/--csv/--markdown and summary -o write
// through a symbolic link, into a FIFO or a device, and replace only a
// regular file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "report/report.hpp"
#include "result_files.hpp"
#include "results/atomic_write.hpp"
#include "test_files.hpp"

using namespace milabench;
using namespace milabench::test;
namespace fs = std::filesystem;

TEST(OutputFile, ASymlinkIsWrittenThroughAndStaysALink) {
  const fs::path dir = scratch_dir("out_link");
  fs::create_directories(dir / "real");
  fs::create_symlink("real/report.html", dir / "link.html");  // relative, dangling at first
  write_output_file((dir / "link.html").string(), "one");
  EXPECT_TRUE(fs::is_symlink(dir / "link.html"));
  EXPECT_EQ(test::read_text(dir / "real/report.html"), "one");
  write_output_file((dir / "link.html").string(), "two");  // target exists now: replaced, link kept
  EXPECT_TRUE(fs::is_symlink(dir / "link.html"));
  EXPECT_EQ(test::read_text(dir / "real/report.html"), "two");
  fs::create_symlink("loop", dir / "loop");
  EXPECT_THROW(write_output_file((dir / "loop").string(), "x"), std::runtime_error);
  EXPECT_THROW(write_output_file(dir.string(), "x"), std::runtime_error);  // a directory
}

TEST(OutputFile, AFifoReaderGetsTheTextAndTheFifoStays) {
  const fs::path dir = scratch_dir("out_fifo");
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = test::read_text(fifo); });
  write_output_file(fifo.string(), "a,b\n1,2\n");
  reader.join();
  EXPECT_EQ(got, "a,b\n1,2\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  write_output_file("/dev/null", "x");  // a character device: written, never replaced
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(OutputFile, SummaryAndReportOutputsGoThroughALink) {
  const fs::path dir = result_dir("out_cli");
  fs::create_directories(dir / "res");
  write_json(dir / "res" / "s.a.J0.0.20260101-000000-000001.json",
             result_record("s.a", "0.0", "0", std::vector<double>(12, 9)));
  fs::create_symlink(dir / "summary.target.json", dir / "summary.json");
  std::ostringstream out, err;
  ASSERT_EQ(run_summary((dir / "res").string(), (dir / "summary.json").string(), out, err), 0) << err.str();
  EXPECT_TRUE(fs::is_symlink(dir / "summary.json"));
  EXPECT_NE(test::read_text(dir / "summary.target.json").find("\"s.a\""), std::string::npos);
  fs::create_symlink(dir / "t.csv", dir / "link.csv");
  ReportOptions r;
  r.input = (dir / "res").string();
  r.csv = (dir / "link.csv").string();
  std::ostringstream out2, err2;
  ASSERT_EQ(run_report(r, out2, err2), 0) << err2.str();
  EXPECT_TRUE(fs::is_symlink(dir / "link.csv"));
  EXPECT_NE(test::read_text(dir / "t.csv").find("s.a"), std::string::npos);
}
