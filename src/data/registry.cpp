// The one table of datasets in this build.
#include "data/dataset.hpp"
#include "data/mnist.hpp"
#include "data/wmt16.hpp"
#include "data/movielens.hpp"
#include "data/wikitext2.hpp"
#include "data/fake_imagenet.hpp"
#include "data/coco.hpp"
#include "data/bsds500.hpp"
#include "data/mnist.hpp"

namespace milabench {

const std::vector<DatasetInfo>& dataset_registry() {
  static const std::vector<DatasetInfo> table = {
      {"mnist", {"milarun.datasets:mnist"}, "mnist/MNIST/raw/*-ubyte (idx)", mnist_present,
       [](const std::string& root, const DatasetOptions& o) { generate_mnist(root, o.scale); }},
      {"wmt16", {"milarun.datasets:wmt16"}, "wmt16/{train.tok.clean,newstest2014.tok}.bpe.32000.{en,de}, vocab.bpe.32000",
       wmt16_present,
       [](const std::string& root, const DatasetOptions& o) {
         Wmt16GenOptions g;
         g.scale = o.scale;
         g.threads = o.threads;
         generate_wmt16(root, g);
       }},
      {"wiki2", {"milarun.datasets:wiki2"}, "wikitext-2/{train,valid,test}.txt (text)", wiki2_present, generate_wiki2},
      {"ml20m", {"milarun.datasets:ml20m"}, "ml-20m/ratings.csv (+ ratings.bin cache)", ml20m_present, generate_ml20m},
      {"fake_imagenet", {"milarun.datasets:fake_imagenet"}, "ImageNet/{train,val,test}/<class>/<i>.jpeg (512x512)",
       fake_imagenet_present, generate_fake_imagenet},
      {"coco", {"milarun.datasets:coco"}, "coco/{train2017,val2017}/*.jpg + annotations/instances_{train,val}2017.json",
       coco_present, generate_coco},
      {kBsds500Name, {"milarun.datasets:bsds500_reso", "bsds500_reso"},
       "bsds500/BSR/BSDS500/data/images/{train,val,test}/<id>.jpg (481x321, 321x481)", bsds500_present,
       generate_bsds500},
  };
  return table;
}

const DatasetInfo* find_dataset(const std::string& name_or_alias) {
  std::string key = name_or_alias;
  for (const char* prefix : {"milabench.datasets:", "milarun.datasets:"})
    if (key.rfind(prefix, 0) == 0) key = key.substr(std::string(prefix).size());
  for (const auto& d : dataset_registry()) {
    if (d.name == key) return &d;
    for (const auto& a : d.aliases)  // e.g. "milarun.datasets:bsds500_reso" for bsds500
      if (a == key || a == name_or_alias) return &d;
  }
  return nullptr;
}

std::string dataset_command(const std::string& name, const std::string& dataroot) {
  return "milarun dataset " + name + " -d " + (dataroot.empty() ? "$MILARUN_DATAROOT" : dataroot);
}

}  // namespace milabench
