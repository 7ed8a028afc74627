// Safe extraction: good tar.gz / zip, and hostile archives built here with
// libarchive's writer. A refused archive must leave the target absent,
// nothing outside it written, and no temporary directory behind.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fetch/extract.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using namespace milabench::fetch;

namespace {

struct Entry {
  std::string path;
  std::string content;   // regular file body
  std::string symlink;   // non-empty: a symlink to this
  std::string hardlink;  // non-empty: a hard link to this entry path
  bool dir = false;
  bool fifo = false;
};

Entry file(std::string path, std::string content) {
  return {std::move(path), std::move(content), "", "", false, false};
}
Entry slink(std::string path, std::string to) { return {std::move(path), "", std::move(to), "", false, false}; }
Entry hlink(std::string path, std::string to) { return {std::move(path), "", "", std::move(to), false, false}; }
Entry directory(std::string path) { return {std::move(path), "", "", "", true, false}; }
Entry fifo(std::string path) { return {std::move(path), "", "", "", false, true}; }

enum class Kind { TarGz, Zip };

void write_archive(const fs::path& out, Kind kind, const std::vector<Entry>& entries) {
  struct archive* a = archive_write_new();
  if (kind == Kind::TarGz) {
    archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  } else {
    archive_write_set_format_zip(a);
  }
  ASSERT_EQ(archive_write_open_filename(a, out.c_str()), ARCHIVE_OK);
  for (const auto& e : entries) {
    struct archive_entry* en = archive_entry_new();
    archive_entry_set_pathname(en, e.path.c_str());
    if (e.fifo) {
      archive_entry_set_filetype(en, AE_IFIFO);
      archive_entry_set_perm(en, 0644);
    } else if (e.dir) {
      archive_entry_set_filetype(en, AE_IFDIR);
      archive_entry_set_perm(en, 0755);
    } else if (!e.symlink.empty()) {
      archive_entry_set_filetype(en, AE_IFLNK);
      archive_entry_set_symlink(en, e.symlink.c_str());
      archive_entry_set_perm(en, 0777);
    } else if (!e.hardlink.empty()) {
      archive_entry_set_filetype(en, AE_IFREG);
      archive_entry_set_hardlink(en, e.hardlink.c_str());
      archive_entry_set_perm(en, 0644);
    } else {
      archive_entry_set_filetype(en, AE_IFREG);
      archive_entry_set_perm(en, 0644);
      archive_entry_set_size(en, static_cast<la_int64_t>(e.content.size()));
    }
    ASSERT_EQ(archive_write_header(a, en), ARCHIVE_OK) << archive_error_string(a);
    if (!e.content.empty()) archive_write_data(a, e.content.data(), e.content.size());
    archive_entry_free(en);
  }
  archive_write_close(a);
  archive_write_free(a);
}

class ExtractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fetch-ex-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    base_ = tmpl;
    fs::create_directories(base_ / "data");
    fs::create_directories(base_ / "outside");
  }
  void TearDown() override { fs::remove_all(base_); }

  fs::path target() const { return base_ / "data" / "ds"; }
  // Everything under data/ other than the target (temporary dirs, escapes).
  std::vector<std::string> strays() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(base_ / "data"))
      if (e.path() != target()) out.push_back(e.path().filename().string());
    return out;
  }
  void expect_refused_cleanly(const ExtractResult& r, const std::string& needle) {
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find(needle), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos);
    EXPECT_FALSE(fs::exists(fs::symlink_status(target())));
    EXPECT_TRUE(strays().empty()) << strays()[0];
    EXPECT_TRUE(fs::is_empty(base_ / "outside"));
  }

  fs::path base_;
};

}  // namespace

TEST(ExtractPaths, UnsafeNamesAndLinkTargetsAreRecognised) {
  EXPECT_EQ(unsafe_entry_path("a/b.txt"), "");
  EXPECT_EQ(unsafe_entry_path("./a/./b"), "");
  EXPECT_NE(unsafe_entry_path("/etc/passwd"), "");
  EXPECT_NE(unsafe_entry_path("a/../../b"), "");
  EXPECT_NE(unsafe_entry_path(".."), "");
  EXPECT_NE(unsafe_entry_path(""), "");
  EXPECT_EQ(unsafe_link_target("a/b/l", "../c"), "");
  EXPECT_EQ(unsafe_link_target("a/l", "../c"), "");
  EXPECT_NE(unsafe_link_target("l", "../c"), "");
  EXPECT_NE(unsafe_link_target("a/l", "../../c"), "");
  EXPECT_NE(unsafe_link_target("a/l", "/etc"), "");
}

TEST_F(ExtractTest, GoodTarGzExtractsWithInsideSymlink) {
  fs::path arc = base_ / "good.tar.gz";
  write_archive(arc, Kind::TarGz,
                {directory("top"), file("top/a.txt", "alpha"), file("top/sub/b.txt", "beta"),
                 slink("top/link", "sub/b.txt"), hlink("top/hard", "top/a.txt")});
  auto r = extract_archive(arc.string(), target().string());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(milabench::test::read_text(target() / "top/a.txt"), "alpha");
  EXPECT_EQ(milabench::test::read_text(target() / "top/sub/b.txt"), "beta");
  EXPECT_EQ(milabench::test::read_text(target() / "top/link"), "beta");
  EXPECT_EQ(milabench::test::read_text(target() / "top/hard"), "alpha");
  EXPECT_TRUE(strays().empty());
}

TEST_F(ExtractTest, GoodZipExtractsWithStrippedTopDirectory) {
  fs::path arc = base_ / "good.zip";
  write_archive(arc, Kind::Zip,
                {directory("wikitext-2/"), file("wikitext-2/wiki.train.tokens", "the cat"),
                 file("wikitext-2/wiki.valid.tokens", "a dog")});
  ExtractOptions o;
  o.strip_components = 1;
  auto r = extract_archive(arc.string(), target().string(), o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(milabench::test::read_text(target() / "wiki.train.tokens"), "the cat");
  EXPECT_EQ(milabench::test::read_text(target() / "wiki.valid.tokens"), "a dog");
  EXPECT_EQ(r.entries, 2u);
}

TEST_F(ExtractTest, PathTraversalIsRefused) {
  fs::path arc = base_ / "evil.tar.gz";
  write_archive(arc, Kind::TarGz,
                {file("ok.txt", "fine"), file("../evil", "pwned"), file("../../outside/evil", "pwned")});
  expect_refused_cleanly(extract_archive(arc.string(), target().string()), "\"..\" path component");
  EXPECT_FALSE(fs::exists(base_ / "evil"));
}

TEST_F(ExtractTest, AbsolutePathIsRefused) {
  fs::path arc = base_ / "abs.tar.gz";
  write_archive(arc, Kind::TarGz, {file("ok.txt", "fine"), file((base_ / "outside" / "abs").string(), "pwned")});
  expect_refused_cleanly(extract_archive(arc.string(), target().string()), "absolute path");
}

TEST_F(ExtractTest, SymlinkEscapingTheTargetThenWriteThroughItIsRefused) {
  fs::path arc = base_ / "link.tar.gz";
  write_archive(arc, Kind::TarGz, {slink("esc", "../../outside"), file("esc/pwned", "pwned")});
  expect_refused_cleanly(extract_archive(arc.string(), target().string()), "outside the extraction directory");
}

TEST_F(ExtractTest, AbsoluteSymlinkIsRefused) {
  fs::path arc = base_ / "abslink.zip";
  write_archive(arc, Kind::Zip, {slink("esc", (base_ / "outside").string()), file("esc/pwned", "pwned")});
  expect_refused_cleanly(extract_archive(arc.string(), target().string()), "absolute path");
}

TEST_F(ExtractTest, WritingThroughAnInsideSymlinkIsRefused) {
  // "a" -> "." is harmless alone, but "a/l" -> "../x" would then resolve
  // outside: any entry under a symlinked directory is refused.
  fs::path arc = base_ / "chain.tar.gz";
  write_archive(arc, Kind::TarGz, {slink("a", "."), slink("a/l", "../outside"), file("a/l/pwned", "pwned")});
  expect_refused_cleanly(extract_archive(arc.string(), target().string()), "goes through the symlink a");
}

TEST_F(ExtractTest, HardLinkOutsideIsRefused) {
  fs::path arc = base_ / "hard.tar.gz";
  write_archive(arc, Kind::TarGz, {hlink("h", "../outside/secret")});
  expect_refused_cleanly(extract_archive(arc.string(), target().string()), "hard link target");
}

TEST_F(ExtractTest, TruncatedArchiveLeavesNothingBehind) {
  fs::path arc = base_ / "cut.tar.gz";
  std::string big(300000, 'x');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 2654435761u) >> 13);
  write_archive(arc, Kind::TarGz, {file("first.txt", "one"), file("big.bin", big)});
  fs::resize_file(arc, fs::file_size(arc) / 2);
  auto r = extract_archive(arc.string(), target().string());
  expect_refused_cleanly(r, "extract " + arc.string());
}

TEST_F(ExtractTest, ExistingTargetIsLeftUntouched) {
  fs::create_directories(target());
  std::ofstream(target() / "mine.txt") << "keep";
  fs::path arc = base_ / "good.tar.gz";
  write_archive(arc, Kind::TarGz, {file("a.txt", "alpha")});
  auto r = extract_archive(arc.string(), target().string());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("already exists"), std::string::npos) << r.error;
  EXPECT_EQ(milabench::test::read_text(target() / "mine.txt"), "keep");
  EXPECT_FALSE(fs::exists(target() / "a.txt"));
  EXPECT_TRUE(strays().empty());
}

TEST_F(ExtractTest, ContentOverTheLimitIsRefused) {
  fs::path arc = base_ / "bomb.tar.gz";
  write_archive(arc, Kind::TarGz, {file("zeros.bin", std::string(1 << 20, '\0'))});
  ExtractOptions o;
  o.max_bytes = 1000;
  expect_refused_cleanly(extract_archive(arc.string(), target().string(), o), "exceeds the limit");
}

TEST_F(ExtractTest, GunzipDecompressesAndRefusesCorruptData) {
  fs::path gz = base_ / "x.gz";
  {
    struct archive* a = archive_write_new();
    archive_write_set_format_raw(a);
    archive_write_add_filter_gzip(a);
    ASSERT_EQ(archive_write_open_filename(a, gz.c_str()), ARCHIVE_OK);
    struct archive_entry* en = archive_entry_new();
    archive_entry_set_filetype(en, AE_IFREG);
    archive_entry_set_pathname(en, "x");
    archive_write_header(a, en);
    std::string text(5000, 'q');
    archive_write_data(a, text.data(), text.size());
    archive_entry_free(en);
    archive_write_close(a);
    archive_write_free(a);
  }
  auto ok = gunzip_file(gz.string(), (base_ / "data" / "x").string());
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_EQ(milabench::test::read_text(base_ / "data" / "x"), std::string(5000, 'q'));

  fs::resize_file(gz, fs::file_size(gz) - 12);  // cut the deflate stream and trailer
  auto bad = gunzip_file(gz.string(), (base_ / "data" / "y").string());
  EXPECT_FALSE(bad.ok);
  EXPECT_FALSE(fs::exists(base_ / "data" / "y"));
  for (const auto& f : fs::directory_iterator(base_ / "data"))  // no temporary file left (y.tmp.<pid>)
    EXPECT_NE(f.path().filename().string().rfind("y.", 0), 0u) << f.path();
}

TEST_F(ExtractTest, FifoEntryIsRefused) {
  fs::path arc = base_ / "fifo.tar.gz";
  write_archive(arc, Kind::TarGz, {file("ok.txt", "fine"), fifo("pipe")});
  expect_refused_cleanly(extract_archive(arc.string(), target().string()), "FIFO");
}
