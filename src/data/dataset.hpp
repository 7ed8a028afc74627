// Datasets: one file per dataset (reader of the real on-disk layout + a
// generator writing synthetic data in that same layout). The table of names,
// aliases, layouts and download sources is fetch::dataset_sources() (core,
// src/fetch/dataset_table.cpp); data/registry.cpp hooks each entry's reader
// check and generator to it by name. No torch here: plain C++.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "fetch/datasets.hpp"

namespace milabench {

struct DatasetOptions {
  double scale = 1.0;    // fraction of the real set's size to generate (0 < scale <= 1)
  unsigned threads = 0;  // generator threads; 0 = all CPUs this process may use
  bool force = false;    // regenerate even when the data is present
};

struct DatasetInfo {
  std::string name;                    // the table's name, e.g. "mnist"
  const fetch::DatasetSource* source;  // its table entry: aliases, layout, download files
  // Whether a complete dataset (real or synthetic) is under dataroot.
  std::function<bool(const std::string& dataroot)> present;
  // Writes a synthetic dataset in the real layout and records it in the
  // MANIFEST (data/manifest.hpp). Throws std::runtime_error naming the path
  // on I/O failure; never leaves a half-written file under its final name.
  std::function<void(const std::string& dataroot, const DatasetOptions&)> generate;
};

// All datasets of this build, in the table's order (registry.cpp). Throws
// std::logic_error when a table entry has no hooks or hooks name no entry.
const std::vector<DatasetInfo>& dataset_registry();
// By name or alias, as fetch::find_dataset_source; nullptr when unknown.
const DatasetInfo* find_dataset(const std::string& name_or_alias);

// The command that creates `name` under `dataroot`, for error messages:
// "milarun dataset NAME -d DATAROOT".
std::string dataset_command(const std::string& name, const std::string& dataroot);
// For a dataset that is present but corrupt: the same with --force, which
// regenerates it (without --force the command answers "present" and changes nothing).
inline std::string dataset_remake_command(const std::string& name, const std::string& dataroot) {
  return dataset_command(name, dataroot) + " --force";
}

}  // namespace milabench
