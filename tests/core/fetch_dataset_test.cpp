// `milarun dataset NAME --download` end to end against a local server, and
// the table of the original datasets.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "fetch/datasets.hpp"
#include "fetch/sha256.hpp"
#include "local_http_server.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using namespace milabench::fetch;
using milabench::DiskSpace;
using milabench::testing::LocalHttpServer;

namespace {

class DatasetDownloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fetch-ds-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    opts_.connect_timeout_s = 5;
    opts_.stall_timeout_s = 5;
    opts_.max_time_s = 20;
    opts_.retry_wait_s = 0;
    opts_.attempts = 1;
    opts_.reserve_bytes = 0;
    tarball_ = milabench::test::pack_archive("tgz", {{"tiny/images/a.txt", "image a"}, {"tiny/labels.txt", "1 2 3"}});
    idx_gz_ = milabench::test::pack_archive("gz", {{"idx", std::string(1000, '\x07')}});
    server_.add("/tiny.tar.gz", {tarball_});
    server_.add("/labels.gz", {idx_gz_});
    src_.name = "tiny";
    src_.dir = "tiny";
    src_.disk_bytes = 4096;
    src_.files = {
        {{server_.url("/tiny.tar.gz"), sha256_hex(tarball_), tarball_.size()}, "tiny.tar.gz", Unpack::Extract, "", 1},
        {{server_.url("/labels.gz"), "", 0}, "labels-idx1-ubyte.gz", Unpack::Gunzip, "raw", 0}};
  }
  void TearDown() override { fs::remove_all(root_); }

  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(root_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path root_;
  DownloadOptions opts_;
  LocalHttpServer server_;
  DatasetSource src_;
  std::string tarball_, idx_gz_;
};

}  // namespace

TEST_F(DatasetDownloadTest, InstallsVerifiesAndRecordsProvenance) {
  std::ostringstream out, err;
  ASSERT_EQ(download_dataset_from(src_, root_.string(), opts_, out, err), 0) << err.str();
  EXPECT_EQ(milabench::test::read_text(root_ / "tiny/images/a.txt"), "image a");
  EXPECT_EQ(milabench::test::read_text(root_ / "tiny/labels.txt"), "1 2 3");
  EXPECT_EQ(milabench::test::read_text(root_ / "tiny/raw/labels-idx1-ubyte"), std::string(1000, '\x07'));
  auto prov = nlohmann::json::parse(milabench::test::read_text(root_ / "tiny" / kProvenanceFile));
  EXPECT_EQ(prov["source"], "download");
  ASSERT_EQ(prov["files"].size(), 2u);
  EXPECT_EQ(prov["files"][0]["verified"], true);
  EXPECT_EQ(prov["files"][1]["verified"], false);
  EXPECT_EQ(prov["files"][1]["sha256"], sha256_hex(idx_gz_));
  EXPECT_NE(out.str().find("unverified"), std::string::npos) << out.str();
  EXPECT_EQ(entries(), std::vector<std::string>{"tiny"});  // cache and staging are gone

  std::ostringstream out2, err2;
  EXPECT_EQ(download_dataset_from(src_, root_.string(), opts_, out2, err2), 0);
  EXPECT_NE(out2.str().find("already downloaded"), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(DatasetDownloadTest, MaliciousArchiveInstallsNothing) {
  std::string evil = milabench::test::pack_archive("tgz", {{"tiny/ok.txt", "ok"}, {"../../escaped.txt", "pwned"}});
  server_.add("/evil.tar.gz", {evil});
  src_.files[0].remote = {server_.url("/evil.tar.gz"), sha256_hex(evil), evil.size()};
  std::ostringstream out, err;
  EXPECT_EQ(download_dataset_from(src_, root_.string(), opts_, out, err), 1);
  EXPECT_NE(err.str().find("refused"), std::string::npos) << err.str();
  EXPECT_FALSE(fs::exists(root_ / "tiny"));
  EXPECT_FALSE(fs::exists(root_.parent_path() / "escaped.txt"));
  EXPECT_EQ(entries(), std::vector<std::string>{".downloads"});  // no staging directory left
}

TEST_F(DatasetDownloadTest, NotEnoughSpaceForTheUnpackedDatasetStopsFirst) {
  struct Tiny : DiskSpace {
    std::uint64_t available_bytes(const std::string&) override { return 100; }
  } disk;
  opts_.disk = &disk;
  std::ostringstream out, err;
  EXPECT_EQ(download_dataset_from(src_, root_.string(), opts_, out, err), 1);
  EXPECT_NE(err.str().find("not enough disk space"), std::string::npos) << err.str();
  EXPECT_TRUE(server_.requests().empty());
  EXPECT_FALSE(fs::exists(root_ / "tiny"));
}

TEST_F(DatasetDownloadTest, DirectoryInTheWayIsNotTouched) {
  fs::create_directories(root_ / "tiny");
  std::ofstream(root_ / "tiny" / "synthetic.bin") << "generated";
  std::ostringstream out, err;
  EXPECT_EQ(download_dataset_from(src_, root_.string(), opts_, out, err), 2);
  EXPECT_NE(err.str().find("move it aside"), std::string::npos) << err.str();
  EXPECT_EQ(milabench::test::read_text(root_ / "tiny" / "synthetic.bin"), "generated");
}

TEST(DatasetTable, NamesUrlsAndHashesAreWellFormed) {
  std::set<std::string> names;
  for (const auto& s : dataset_sources()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    for (const auto& a : s.aliases) EXPECT_TRUE(names.insert(a).second) << a;
    EXPECT_TRUE(!s.files.empty() || !s.note.empty()) << s.name << ": not downloadable and no note saying why";
    EXPECT_GT(s.disk_bytes, 0u) << s.name;
    EXPECT_EQ(s.layout.rfind(s.dir + "/", 0), 0u) << s.name << ": layout must start with its directory";
    for (const auto& f : s.files) {
      EXPECT_TRUE(f.remote.url.rfind("http://", 0) == 0 || f.remote.url.rfind("https://", 0) == 0) << f.remote.url;
      EXPECT_TRUE(f.remote.sha256.empty() || is_sha256_hex(f.remote.sha256)) << f.remote.url;
      EXPECT_EQ(unsafe_entry_path(f.filename), "") << f.filename;
    }
  }
  ASSERT_NE(find_dataset_source("milarun.datasets:mnist"), nullptr);
  for (const auto& f : find_dataset_source("mnist")->files) EXPECT_FALSE(f.remote.sha256.empty());
}

// Every --dataset value of the original's profiles (and the former download
// table's names) resolves to one entry: `milarun dataset wiki2 --download`
// and `ml20m --download` reach the same entry as the profiles.
TEST(DatasetTable, ProfileNamesAndAliasesReachOneEntry) {
  const std::pair<const char*, const char*> cases[] = {{"milarun.datasets:mnist", "mnist"},
                                                       {"milarun.datasets:fake_imagenet", "fake_imagenet"},
                                                       {"milarun.datasets:bsds500_reso", "bsds500"},
                                                       {"bsds500_reso", "bsds500"},
                                                       {"milarun.datasets:wmt16", "wmt16"},
                                                       {"milarun.datasets:wiki2", "wiki2"},
                                                       {"wiki2", "wiki2"},
                                                       {"wikitext-2", "wiki2"},
                                                       {"milarun.datasets:coco", "coco"},
                                                       {"milabench.datasets:coco", "coco"},
                                                       {"milarun.datasets:ml20m", "ml20m"},
                                                       {"ml20m", "ml20m"},
                                                       {"ml-20m", "ml20m"}};
  for (const auto& [alias, name] : cases) {
    const DatasetSource* s = find_dataset_source(alias);
    ASSERT_NE(s, nullptr) << alias;
    EXPECT_EQ(s->name, name) << alias;
  }
  for (const char* n : {"wiki2", "ml20m", "mnist", "bsds500", "coco"})
    EXPECT_FALSE(find_dataset_source(n)->files.empty()) << n << " is downloadable";
  EXPECT_EQ(find_dataset_source("imagenet"), nullptr);
  EXPECT_EQ(find_dataset_source("milarun.datasets:"), nullptr);
}

TEST(DatasetTable, UnknownNameListsTheDownloadableOnes) {
  std::ostringstream out, err;
  EXPECT_EQ(download_dataset("imagenet-2012", "/nonexistent", out, err), 2);
  EXPECT_NE(err.str().find("downloadable: mnist"), std::string::npos) << err.str();
  EXPECT_EQ(err.str().find('\n'), err.str().size() - 1);
}

TEST(DatasetTable, DatasetWithoutSourceSaysWhyAndDownloadsNothing) {
  std::ostringstream out, err;
  EXPECT_EQ(download_dataset("milarun.datasets:wmt16", "/nonexistent", out, err), 2);
  EXPECT_NE(err.str().find("no download source"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("without --download"), std::string::npos) << err.str();
  EXPECT_EQ(err.str().find('\n'), err.str().size() - 1);
}

TEST(DatasetTable, MirrorServesEveryFileUnderTheDatasetDirectory) {
  const DatasetSource& coco = *find_dataset_source("coco");
  DatasetSource m = with_mirror(coco, "http://127.0.0.1:8000/milabench/");
  ASSERT_EQ(m.files.size(), coco.files.size());
  EXPECT_EQ(m.files[0].remote.url, "http://127.0.0.1:8000/milabench/coco/train2017.zip");
  EXPECT_EQ(m.files[2].remote.url, "http://127.0.0.1:8000/milabench/coco/annotations_trainval2017.zip");
  EXPECT_EQ(m.files[0].remote.sha256, coco.files[0].remote.sha256);
}
