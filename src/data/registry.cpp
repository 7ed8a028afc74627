// The reader check and generator of each dataset of fetch::dataset_sources(),
// hooked by name: the table itself (names, aliases, layout, downloads) is core.
#include <stdexcept>

#include "data/bsds500.hpp"
#include "data/coco.hpp"
#include "data/dataset.hpp"
#include "data/fake_imagenet.hpp"
#include "data/mnist.hpp"
#include "data/movielens.hpp"
#include "data/token_shards.hpp"
#include "data/wikitext2.hpp"
#include "data/wmt16.hpp"

namespace milabench {

namespace {

struct Hooks {
  const char* name;
  std::function<bool(const std::string&)> present;
  std::function<void(const std::string&, const DatasetOptions&)> generate;
};

const std::vector<Hooks>& hooks() {
  static const std::vector<Hooks> table = {
      {"mnist", mnist_present, [](const std::string& root, const DatasetOptions& o) { generate_mnist(root, o.scale); }},
      {"fake_imagenet", fake_imagenet_present, generate_fake_imagenet},
      {kBsds500Name, bsds500_present, generate_bsds500},
      {"wmt16", wmt16_present,
       [](const std::string& root, const DatasetOptions& o) {
         Wmt16GenOptions g;
         g.scale = o.scale;
         g.threads = o.threads;
         generate_wmt16(root, g);
       }},
      {"wiki2", wiki2_present, generate_wiki2},
      {"coco", coco_present, generate_coco},
      {"ml20m", ml20m_present, generate_ml20m},
      {"llmc_gpt2", [](const std::string& root) { return token_dataset_present(root, "llmc_gpt2"); },
       [](const std::string& root, const DatasetOptions& o) { generate_token_dataset(root, "llmc_gpt2", o); }},
      {"llmc_llama3", [](const std::string& root) { return token_dataset_present(root, "llmc_llama3"); },
       [](const std::string& root, const DatasetOptions& o) { generate_token_dataset(root, "llmc_llama3", o); }},
      {"llmc_tiny256", [](const std::string& root) { return token_dataset_present(root, "llmc_tiny256"); },
       [](const std::string& root, const DatasetOptions& o) { generate_token_dataset(root, "llmc_tiny256", o); }},
  };
  return table;
}

std::vector<DatasetInfo> join_table() {
  std::vector<DatasetInfo> out;
  for (const auto& s : fetch::dataset_sources()) {
    const Hooks* h = nullptr;
    for (const auto& c : hooks())
      if (s.name == c.name) h = &c;
    if (!h) throw std::logic_error("dataset " + s.name + " of the dataset table has no reader/generator hooks");
    out.push_back({s.name, &s, h->present, h->generate});
  }
  for (const auto& c : hooks())
    if (!fetch::find_dataset_source(c.name) || fetch::find_dataset_source(c.name)->name != c.name)
      throw std::logic_error(std::string("dataset hooks for ") + c.name + " name no entry of the dataset table");
  return out;
}

}  // namespace

const std::vector<DatasetInfo>& dataset_registry() {
  static const std::vector<DatasetInfo> table = join_table();
  return table;
}

const DatasetInfo* find_dataset(const std::string& name_or_alias) {
  const fetch::DatasetSource* s = fetch::find_dataset_source(name_or_alias);
  if (!s) return nullptr;
  for (const auto& d : dataset_registry())
    if (d.source == s) return &d;
  return nullptr;
}

std::string dataset_command(const std::string& name, const std::string& dataroot) {
  return "milarun dataset " + name + " -d " + (dataroot.empty() ? "$MILARUN_DATAROOT" : dataroot);
}

}  // namespace milabench
