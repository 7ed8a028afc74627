// Shared by the image workload tests: datasets generated once per test
// binary through the dataset registry.
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

// fake_imagenet's smallest useful scale: 25 train images (classes 0..24), 1 val, 1 test.
inline constexpr double kTinyImagenetScale = 0.00025;

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
