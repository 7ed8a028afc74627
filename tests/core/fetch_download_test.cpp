// Downloader against a local HTTP server: hash check, resume, faults.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "fetch/downloader.hpp"
#include "fetch/sha256.hpp"
#include "local_http_server.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using namespace milabench::fetch;
using milabench::DiskSpace;
using milabench::testing::LocalHttpServer;
using milabench::testing::Route;

namespace {

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(gen() & 0xff);
  return s;
}

class FakeDisk : public DiskSpace {
 public:
  explicit FakeDisk(std::uint64_t n) : free_(n) {}
  std::uint64_t available_bytes(const std::string&) override { return free_; }

 private:
  std::uint64_t free_;
};

class DownloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fetch-dl-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    opts_.connect_timeout_s = 5;
    opts_.stall_timeout_s = 5;
    opts_.max_time_s = 20;
    opts_.retry_wait_s = 0;
    opts_.attempts = 1;
    opts_.reserve_bytes = 0;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dest(const std::string& name = "file.bin") const { return (dir_ / name).string(); }

  fs::path dir_;
  DownloadOptions opts_;
  LocalHttpServer server_;
  const std::string body_ = random_bytes(200000, 7);
};

}  // namespace

TEST(Sha256, MatchesKnownVectors) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_TRUE(is_sha256_hex(sha256_hex("x")));
  EXPECT_FALSE(is_sha256_hex("ABC"));
}

TEST_F(DownloadTest, DownloadsAndVerifiesTheHash) {
  server_.add("/f.bin", {body_});
  auto r = download_file({server_.url("/f.bin"), sha256_hex(body_), body_.size()}, dest(), opts_);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.sha256, sha256_hex(body_));
  EXPECT_EQ(milabench::test::read_text(dest()), body_);
  EXPECT_FALSE(fs::exists(dest() + ".part"));
}

TEST_F(DownloadTest, TruncatedTransferKeepsPartAndNextCallResumesWithRange) {
  server_.add("/f.bin", {body_, /*drop_after=*/60000});
  RemoteFile f{server_.url("/f.bin"), sha256_hex(body_), body_.size()};
  auto first = download_file(f, dest(), opts_);
  ASSERT_FALSE(first.ok);
  EXPECT_NE(first.error.find(f.url), std::string::npos) << first.error;
  EXPECT_NE(first.error.find("run the same command again to resume"), std::string::npos) << first.error;
  EXPECT_EQ(first.error.find('\n'), std::string::npos);
  EXPECT_FALSE(fs::exists(dest()));
  ASSERT_EQ(fs::file_size(dest() + ".part"), 60000u);

  auto second = download_file(f, dest(), opts_);
  ASSERT_TRUE(second.ok) << second.error;
  EXPECT_EQ(second.resumed_from, 60000u);
  auto log = server_.requests();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].range, "");
  EXPECT_EQ(log[1].range, "bytes=60000-");
  EXPECT_EQ(milabench::test::read_text(dest()), body_);
}

TEST_F(DownloadTest, RetriesWithinOneCallResumeTheSamePart) {
  Route r{body_, 50000};
  r.drops = 2;
  server_.add("/f.bin", r);
  opts_.attempts = 3;
  auto res = download_file({server_.url("/f.bin"), sha256_hex(body_), body_.size()}, dest(), opts_);
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(res.requests, 3);
  auto log = server_.requests();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[1].range, "bytes=50000-");
  EXPECT_EQ(log[2].range, "bytes=100000-");
  EXPECT_EQ(milabench::test::read_text(dest()), body_);
}

TEST_F(DownloadTest, ServerWithoutRangeSupportRestartsFromZero) {
  Route r{body_};
  r.honor_range = false;
  server_.add("/f.bin", r);
  std::ofstream(dest() + ".part", std::ios::binary) << "stale bytes from another file";
  auto res = download_file({server_.url("/f.bin"), sha256_hex(body_), body_.size()}, dest(), opts_);
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(milabench::test::read_text(dest()), body_);
}

TEST_F(DownloadTest, WrongChecksumLeavesNoFileAndSaysSo) {
  server_.add("/f.bin", {body_});
  std::string wrong = sha256_hex("something else");
  auto r = download_file({server_.url("/f.bin"), wrong, body_.size()}, dest(), opts_);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("SHA-256 mismatch"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(wrong), std::string::npos);
  EXPECT_NE(r.error.find(server_.url("/f.bin")), std::string::npos);
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
  EXPECT_FALSE(fs::exists(dest()));
  EXPECT_FALSE(fs::exists(dest() + ".part"));
}

TEST_F(DownloadTest, TooLittleDiskSpaceFailsBeforeAnyRequest) {
  server_.add("/f.bin", {body_});
  FakeDisk disk(1000);
  opts_.disk = &disk;
  auto r = download_file({server_.url("/f.bin"), sha256_hex(body_), body_.size()}, dest(), opts_);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("not enough disk space"), std::string::npos) << r.error;
  EXPECT_TRUE(server_.requests().empty());
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(DownloadTest, UnknownSizeIsCheckedAgainstContentLength) {
  server_.add("/f.bin", {body_});
  FakeDisk disk(1000);
  opts_.disk = &disk;
  auto r = download_file({server_.url("/f.bin"), "", 0}, dest(), opts_);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("not enough disk space"), std::string::npos) << r.error;
  EXPECT_EQ(server_.requests().size(), 1u);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(DownloadTest, UnknownHashIsRecordedAsUnverified) {
  server_.add("/f.bin", {body_});
  auto r = download_file({server_.url("/f.bin"), "", 0}, dest(), opts_);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.verified);
  EXPECT_EQ(r.sha256, sha256_hex(body_));
  EXPECT_EQ(r.bytes, body_.size());
}

TEST_F(DownloadTest, SizeDifferentFromTableFailsWithoutKeepingBytes) {
  server_.add("/f.bin", {body_});
  auto r = download_file({server_.url("/f.bin"), "", body_.size() + 10}, dest(), opts_);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("expected"), std::string::npos) << r.error;
  EXPECT_FALSE(fs::exists(dest()));
  EXPECT_FALSE(fs::exists(dest() + ".part"));
}

TEST_F(DownloadTest, HttpErrorIsOneClearLineAndNotRetried) {
  opts_.attempts = 3;
  auto r = download_file({server_.url("/missing.bin"), "", 0}, dest(), opts_);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("HTTP 404"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("/missing.bin"), std::string::npos);
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 1u);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(DownloadTest, ExistingVerifiedFileIsNotFetchedAgain) {
  std::ofstream(dest(), std::ios::binary) << body_;
  auto r = download_file({server_.url("/f.bin"), sha256_hex(body_), body_.size()}, dest(), opts_);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.already_present);
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(DownloadTest, NonHttpUrlIsRefused) {
  auto r = download_file({"file:///etc/passwd", "", 0}, dest(), opts_);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("http"), std::string::npos) << r.error;
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(DownloadTest, ExistingFileWithWrongHashIsReportedNotReplaced) {
  std::ofstream(dest(), std::ios::binary) << "tampered";
  auto r = download_file({server_.url("/f.bin"), sha256_hex(body_), 0}, dest(), opts_);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("delete it and run again"), std::string::npos) << r.error;
  EXPECT_EQ(milabench::test::read_text(dest()), "tampered");
  EXPECT_TRUE(server_.requests().empty());
}

// The server sends the headers, then nothing, and never hangs up on its own:
// the download can only end because the downloader gave up on the stall.
TEST_F(DownloadTest, StalledServerIsAbandonedByTheStallLimit) {
  Route r{body_, 0};
  r.stall = true;
  server_.add("/f.bin", r);
  opts_.stall_timeout_s = 1;
  opts_.max_time_s = 600;  // not the overall limit either
  auto res = download_file({server_.url("/f.bin"), sha256_hex(body_), body_.size()}, dest(), opts_);
  ASSERT_FALSE(res.ok);
  EXPECT_NE(res.error.find(server_.url("/f.bin")), std::string::npos) << res.error;
  EXPECT_NE(res.error.find("too slow"), std::string::npos) << "not a stall: " << res.error;
  EXPECT_FALSE(fs::exists(dest()));
}
