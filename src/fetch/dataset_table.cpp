// The one table of the suite's datasets: names and aliases as the profiles
// write them, directory and reader layout under the data root, and the
// original's public URLs.
//
// SHA-256 values are filled only where published checksums agree (MNIST:
// the sums TensorFlow Datasets and several download scripts record;
// wikitext-2: the sum several independent loaders record). Elsewhere the
// field is empty: the downloader then records the computed hash in the
// dataset's .download.json and reports the file as unverified. Sizes are
// exact where known, 0 otherwise (then the server's Content-Length is used
// for the disk-space check). Each entry's (subdir, strip_components) puts the
// real archive's members where the reader looks: tests/workloads/
// dataset_layout_test.cpp builds archives in the real layouts, serves them
// locally, downloads, unpacks and opens them with the readers.
#include "fetch/datasets.hpp"

namespace milabench::fetch {

namespace {
constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GiB = 1ull << 30;

SourceFile mnist_file(const std::string& name, const std::string& sha, std::uint64_t size) {
  return {{"https://ossci-datasets.s3.amazonaws.com/mnist/" + name, sha, size}, name, Unpack::Gunzip, "MNIST/raw", 0};
}
// The datasets of the original's 2020 suite.
std::vector<DatasetSource> suite_2020_sources() {
  return {
      {"mnist",
       {},
       "mnist",
       "mnist/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte (idx)",
       117 * MiB,
       {mnist_file("train-images-idx3-ubyte.gz", "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
                   9912422),
        mnist_file("train-labels-idx1-ubyte.gz", "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
                   28881),
        mnist_file("t10k-images-idx3-ubyte.gz", "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
                   1648877),
        mnist_file("t10k-labels-idx1-ubyte.gz", "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
                   4542)},
       "yann.lecun.com/exdb/mnist serves the same files; the PyTorch mirror is used as torchvision does"},
      {"fake_imagenet",
       {},
       "ImageNet",
       "ImageNet/{train,val,test}/<class>/<i>.jpeg (512x512)",
       16 * GiB,
       {},
       "random images, as the original's fake_imagenet generates: nothing to download"},
      {"bsds500",
       {"bsds500_reso"},
       "bsds500",
       "bsds500/BSR/BSDS500/data/images/{train,val,test}/<id>.jpg (481x321, 321x481)",
       73 * MiB,
       {{{"http://www.eecs.berkeley.edu/Research/Projects/CS/vision/grouping/BSR/BSR_bsds500.tgz", "", 0},
         "BSR_bsds500.tgz",
         Unpack::Extract,
         "",
         0}},
       "the archive holds BSR/BSDS500/data/{images,groundTruth}/{train,val,test}"},
      {"wmt16",
       {},
       "wmt16",
       "wmt16/{train.tok.clean,newstest2014.tok}.bpe.32000.{en,de}, vocab.bpe.32000",
       13 * GiB,
       {},
       "the original downloads the raw WMT16 en-de corpora (statmt.org) and runs mosesdecoder's Perl tokenizer "
       "and subword-nmt's Python BPE learner over them; that preprocessing is not part of this build, so "
       "wmt16 is generated in the preprocessed layout"},
      {"wiki2",
       {"wikitext-2"},
       "wikitext-2",
       "wikitext-2/wiki.{train,valid,test}.tokens (text)",
       13 * MiB,
       {{{"https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-2-v1.zip",
          "92675f1d63015c1c8b51f1656a52d5bdbc33aafa60cc47a218a66e7ee817488c", 0},
         "wikitext-2-v1.zip",
         Unpack::Extract,
         "",
         1}},
       "the zip holds wikitext-2/wiki.{train,valid,test}.tokens"},
      {"coco",
       {},
       "coco",
       "coco/{train2017,val2017}/*.jpg + annotations/instances_{train,val}2017.json",
       20 * GiB,
       {{{"http://images.cocodataset.org/zips/train2017.zip", "", 0}, "train2017.zip", Unpack::Extract, "", 0},
        {{"http://images.cocodataset.org/zips/val2017.zip", "", 0}, "val2017.zip", Unpack::Extract, "", 0},
        {{"http://images.cocodataset.org/annotations/annotations_trainval2017.zip", "", 0},
         "annotations_trainval2017.zip",
         Unpack::Extract,
         "",
         0}},
       "the zips hold train2017/, val2017/ and annotations/ as the original unpacks them"},
      {"ml20m",
       {"ml-20m"},
       "ml-20m",
       "ml-20m/ratings.csv (+ ratings.bin cache)",
       1843 * MiB,
       {{{"https://files.grouplens.org/datasets/movielens/ml-20m.zip", "", 0}, "ml-20m.zip", Unpack::Extract, "", 1}},
       "the zip holds ml-20m/ratings.csv and the other MovieLens-20M files"},
  };
}

// The 2026 language models' token shards (llm.c's format).
std::vector<DatasetSource> token_shard_sources() {
  return {
      {"llmc_gpt2",
       {},
       "llmc_gpt2",
       "llmc_gpt2/*_{val,train}_NNNNNN.bin (llm.c token shards, GPT-2 vocabulary 50257)",
       575 * MiB,
       {},
       "generated offline (a sparse Markov chain over GPT-2's vocabulary); real llm.c shards of the same format "
       "(e.g. dev/data/fineweb.py's fineweb10B) put in this folder are read unchanged"},
      {"llmc_llama3",
       {},
       "llmc_llama3",
       "llmc_llama3/*_{val,train}_NNNNNN.bin (llm.c token shards, Llama 3 variant: uint32, vocabulary 128256)",
       1149 * MiB,
       {},
       "generated offline (a sparse Markov chain over Llama 3's vocabulary); real llm.c Llama 3 shards "
       "(magic 20240801, version 7, e.g. dev/data/fineweb.py -m llama-3) put in this folder are read unchanged"},
      {"llmc_tiny256",
       {},
       "llmc_tiny256",
       "llmc_tiny256/*_{val,train}_NNNNNN.bin (llm.c token shards, vocabulary 256, the tiny configs)",
       8 * MiB,
       {},
       "generated offline: the tiny configs' 256-token vocabulary has no real corpus"},
  };
}

}  // namespace

const std::vector<DatasetSource>& dataset_sources() {
  static const std::vector<DatasetSource> table = [] {
    std::vector<DatasetSource> all = suite_2020_sources();
    for (auto& s : token_shard_sources()) all.push_back(std::move(s));
    return all;
  }();
  return table;
}

const DatasetSource* find_dataset_source(const std::string& name_or_alias) {
  std::string key = name_or_alias;
  for (const std::string prefix : {"milarun.datasets:", "milabench.datasets:"})
    if (key.rfind(prefix, 0) == 0) key = key.substr(prefix.size());
  for (const auto& s : dataset_sources()) {
    if (s.name == key) return &s;
    for (const auto& a : s.aliases)
      if (a == key) return &s;
  }
  return nullptr;
}

}  // namespace milabench::fetch
