// The original milabench's datasets and their public URLs.
//
// SHA-256 values are filled only where published checksums agree (MNIST:
// the sums TensorFlow Datasets and several download scripts record;
// wikitext-2: the sum several independent loaders record). Elsewhere the
// field is empty: the downloader then records the computed hash in the
// dataset's .download.json and reports the file as unverified. Sizes are
// exact where known, 0 otherwise (then the server's Content-Length is used
// for the disk-space check).
#include "fetch/datasets.hpp"

namespace milabench::fetch {

namespace {
constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GiB = 1ull << 30;

SourceFile mnist_file(const std::string& name, const std::string& sha, std::uint64_t size) {
  return {{"https://ossci-datasets.s3.amazonaws.com/mnist/" + name, sha, size}, name, Unpack::Gunzip, "MNIST/raw", 0};
}

SourceFile wmt_file(const std::string& url, const std::string& name, const std::string& subdir) {
  return {{url, "", 0}, name, Unpack::Extract, "data/" + subdir, 0};
}
}  // namespace

const std::vector<DatasetSource>& dataset_sources() {
  static const std::vector<DatasetSource> table = {
      {"mnist", "mnist", 117 * MiB,
       {mnist_file("train-images-idx3-ubyte.gz", "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609", 9912422),
        mnist_file("train-labels-idx1-ubyte.gz", "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c", 28881),
        mnist_file("t10k-images-idx3-ubyte.gz", "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6", 1648877),
        mnist_file("t10k-labels-idx1-ubyte.gz", "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6", 4542)},
       "yann.lecun.com/exdb/mnist serves the same files; the PyTorch mirror is used as torchvision does"},
      {"bsds500", "bsds500", 73 * MiB,
       {{{"http://www.eecs.berkeley.edu/Research/Projects/CS/vision/grouping/BSR/BSR_bsds500.tgz", "", 0},
         "BSR_bsds500.tgz", Unpack::Extract, "", 0}},
       "unpacks to BSR/BSDS500/data/images/{train,val,test}"},
      {"wikitext-2", "wikitext-2", 13 * MiB,
       {{{"https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-2-v1.zip",
          "92675f1d63015c1c8b51f1656a52d5bdbc33aafa60cc47a218a66e7ee817488c", 0},
         "wikitext-2-v1.zip", Unpack::Extract, "", 1}},
       "wiki.{train,valid,test}.tokens directly in the directory"},
      {"ml-20m", "ml-20m", 1843 * MiB,
       {{{"https://files.grouplens.org/datasets/movielens/ml-20m.zip", "", 0}, "ml-20m.zip", Unpack::Extract, "", 1}},
       "ratings.csv and the other MovieLens-20M files directly in the directory"},
      {"coco", "coco", 20 * GiB,
       {{{"http://images.cocodataset.org/zips/train2017.zip", "", 0}, "train2017.zip", Unpack::Extract, "", 0},
        {{"http://images.cocodataset.org/zips/val2017.zip", "", 0}, "val2017.zip", Unpack::Extract, "", 0},
        {{"http://images.cocodataset.org/annotations/annotations_trainval2017.zip", "", 0},
         "annotations_trainval2017.zip", Unpack::Extract, "", 0}},
       "train2017/, val2017/ and annotations/ as the original"},
      {"wmt16", "wmt16", 13 * GiB,
       {wmt_file("http://www.statmt.org/europarl/v7/de-en.tgz", "europarl-v7-de-en.tgz", "europarl-v7-de-en"),
        wmt_file("http://www.statmt.org/wmt13/training-parallel-commoncrawl.tgz", "common-crawl.tgz", "common-crawl"),
        wmt_file("http://data.statmt.org/wmt16/translation-task/training-parallel-nc-v11.tgz", "nc-v11.tgz", "nc-v11"),
        wmt_file("http://data.statmt.org/wmt16/translation-task/dev.tgz", "dev.tgz", "dev"),
        wmt_file("http://data.statmt.org/wmt16/translation-task/test.tgz", "test.tgz", "test")},
       "raw WMT16 en-de corpora only; the original also cloned mosesdecoder and subword-nmt and ran their "
       "tokenizer and BPE (Python/Perl), which this download does not do"},
  };
  return table;
}

}  // namespace milabench::fetch
