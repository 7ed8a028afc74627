// Every downloadable dataset of the table lands where its reader looks: the
// test builds each source file as the real one is laid out (member names of
// the real archives, content from the generator), serves it from a local HTTP
// server, downloads, verifies, unpacks with the table's settings and opens the
// result with the dataset's reader.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "../core/local_http_server.hpp"
#include "../core/test_files.hpp"
#include "data/bsds500.hpp"
#include "data/coco.hpp"
#include "data/dataset.hpp"
#include "data/mnist.hpp"
#include "data/movielens.hpp"
#include "data/wikitext2.hpp"
#include "fetch/datasets.hpp"
#include "fetch/sha256.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace milabench;
using milabench::test::TempDir;

namespace {

using Members = milabench::test::ArchiveMembers;  // path in the archive -> content

// `prefix` + name for every file of `dir` (generated data).
Members files_of(const fs::path& dir, const std::string& prefix) {
  Members out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file())
      out.push_back({prefix + e.path().filename().string(), milabench::test::read_text(e.path())});
  return out;
}

Members operator+(Members a, const Members& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct RealFile {
  std::string format;  // "zip", "tgz", "gz"
  Members members;     // as the published file holds them
};

// The published files of each downloadable dataset, by the table's file
// name: member paths as in the real archives, content from `gen` (a data
// root where the generator wrote the dataset).
std::map<std::string, RealFile> real_files(const std::string& name, const fs::path& gen) {
  if (name == "mnist") {
    std::map<std::string, RealFile> out;
    for (const char* f :
         {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"})
      out[std::string(f) + ".gz"] = {"gz", {{f, milabench::test::read_text(gen / "mnist/MNIST/raw" / f)}}};
    return out;
  }
  if (name == "bsds500") {
    const fs::path images = gen / "bsds500/BSR/BSDS500/data/images";
    Members m;
    for (const char* split : {"train", "val", "test"}) {
      m = m + files_of(images / split, std::string("BSR/BSDS500/data/images/") + split + "/");
      m.push_back({std::string("BSR/BSDS500/data/groundTruth/") + split + "/100007.mat", "MATLAB 5.0"});
    }
    m.push_back({"BSR/documentation/Arbelaez_Maire_Fowlkes_Malik_TPAMI2010.pdf", "%PDF"});
    return {{"BSR_bsds500.tgz", {"tgz", m}}};
  }
  if (name == "wiki2") {
    Members m;
    for (const char* f : {"wiki.train.tokens", "wiki.valid.tokens", "wiki.test.tokens"})
      m.push_back({std::string("wikitext-2/") + f, milabench::test::read_text(gen / "wikitext-2" / f)});
    return {{"wikitext-2-v1.zip", {"zip", m}}};
  }
  if (name == "coco") {
    return {{"train2017.zip", {"zip", files_of(gen / "coco/train2017", "train2017/")}},
            {"val2017.zip", {"zip", files_of(gen / "coco/val2017", "val2017/")}},
            {"annotations_trainval2017.zip",
             {"zip",
              {{"annotations/instances_train2017.json",
                milabench::test::read_text(gen / "coco/annotations/instances_train2017.json")},
               {"annotations/instances_val2017.json",
                milabench::test::read_text(gen / "coco/annotations/instances_val2017.json")},
               {"annotations/captions_train2017.json", "{}"}}}}};
  }
  if (name == "ml20m") {
    return {{"ml-20m.zip",
             {"zip",
              {{"ml-20m/ratings.csv", milabench::test::read_text(gen / "ml-20m/ratings.csv")},
               {"ml-20m/movies.csv", "movieId,title,genres\n1,Toy Story (1995),Animation\n"},
               {"ml-20m/README.txt", "MovieLens 20M"}}}}};
  }
  return {};
}

// Opens `name` under `root` with its reader; returns what it read, in words.
std::string open_with_reader(const std::string& name, const std::string& root) {
  if (name == "mnist") {
    auto train = read_mnist(root, true), test = read_mnist(root, false);
    return std::to_string(train.images.size(0)) + "+" + std::to_string(test.images.size(0)) + " images";
  }
  if (name == "bsds500") return std::to_string(scan_bsds500(root, "train").samples.size()) + " train images";
  if (name == "wiki2") {
    auto c = read_wiki2(root);
    return std::to_string(c.train.size() + c.valid.size() + c.test.size()) + " tokens";
  }
  if (name == "coco") {
    auto train = read_coco(root, "train"), val = read_coco(root, "val");
    return std::to_string(train.images.size() + val.images.size()) + " images";
  }
  if (name == "ml20m") return std::to_string(load_ml20m(root, 1).pairs()) + " pairs";
  return "";
}

struct Unlimited : DiskSpace {
  std::uint64_t available_bytes(const std::string&) override { return 1ull << 50; }
};

}  // namespace

TEST(DatasetLayout, EveryDownloadableDatasetUnpacksWhereItsReaderLooks) {
  milabench::testing::LocalHttpServer server;
  Unlimited disk;
  fetch::DownloadOptions opts;
  opts.connect_timeout_s = 5;
  opts.stall_timeout_s = 5;
  opts.max_time_s = 60;
  opts.retry_wait_s = 0;
  opts.attempts = 1;
  opts.reserve_bytes = 0;
  opts.disk = &disk;

  std::set<std::string> checked;
  for (const DatasetInfo& d : dataset_registry()) {
    if (d.source->files.empty()) continue;
    SCOPED_TRACE(d.name);
    TempDir gen("layout_gen_" + d.name), root("layout_root_" + d.name);
    DatasetOptions g;
    g.scale = 0.0005;
    g.threads = 1;
    d.generate(gen.str(), g);
    const auto real = real_files(d.name, gen.path);
    ASSERT_FALSE(real.empty()) << "no real-layout case for downloadable dataset " << d.name << " in this test";

    fetch::DatasetSource source = *d.source;  // the table's entry, served locally
    for (auto& f : source.files) {
      auto it = real.find(f.filename);
      ASSERT_NE(it, real.end()) << f.filename;
      const std::string body = milabench::test::pack_archive(it->second.format, it->second.members);
      server.add("/" + d.name + "/" + f.filename, {body});
      f.remote = {server.url("/" + d.name + "/" + f.filename), fetch::sha256_hex(body), body.size()};
    }
    std::ostringstream out, err;
    ASSERT_EQ(fetch::download_dataset_from(source, root.str(), opts, out, err), 0) << err.str();
    EXPECT_TRUE(d.present(root.str())) << "present() is false after the download";
    EXPECT_EQ(open_with_reader(d.name, root.str()), open_with_reader(d.name, gen.str()));
    checked.insert(d.name);
  }
  EXPECT_EQ(checked, (std::set<std::string>{"bsds500", "coco", "mnist", "ml20m", "wiki2"}));
}

TEST(DatasetLayout, RegistryHooksEveryTableEntry) {
  ASSERT_EQ(dataset_registry().size(), fetch::dataset_sources().size());
  for (const auto& s : fetch::dataset_sources()) {
    const DatasetInfo* d = find_dataset("milarun.datasets:" + s.name);
    ASSERT_NE(d, nullptr) << s.name;
    EXPECT_EQ(d->source, &s);
    EXPECT_TRUE(d->present && d->generate) << s.name;
    for (const auto& a : s.aliases) EXPECT_EQ(find_dataset(a), d) << a;
  }
}
