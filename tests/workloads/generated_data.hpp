// Shared by the image workload tests: datasets generated once per test
// binary through the dataset registry, and parameter counts.
#pragma once
#include <torch/torch.h>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "data/dataset.hpp"
#include "test_support.hpp"

namespace milabench::test {

// Number of scalars in `m`'s parameters (what model.parameters records).
inline int64_t parameter_count(const torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

// A data root holding registered dataset `name` generated at `scale` (two
// threads), made once per test binary and removed at exit.
inline std::string generated_dataroot(const std::string& name, double scale) {
  static std::mutex mu;
  static std::map<std::pair<std::string, double>, std::unique_ptr<TempDir>> roots;
  std::lock_guard<std::mutex> lock(mu);
  auto& root = roots[{name, scale}];
  if (!root) {
    const DatasetInfo* info = find_dataset(name);
    if (!info) throw std::runtime_error("unknown dataset " + name);
    auto dir = std::make_unique<TempDir>("data_" + info->name);
    DatasetOptions o;
    o.scale = scale;
    o.threads = 2;
    info->generate(dir->str(), o);
    root = std::move(dir);
  }
  return root->str();
}

}  // namespace milabench::test
