#include "data/manifest.hpp"

#include <ctime>
#include <fstream>

#include "fetch/datasets.hpp"
#include "results/atomic_write.hpp"
#include "results/stand_ins.hpp"

namespace milabench {

static std::string manifest_path(const std::string& dataroot) { return dataroot + "/MANIFEST.json"; }

static nlohmann::json read_manifest(const std::string& dataroot) {
  std::ifstream in(manifest_path(dataroot));
  if (!in) return nlohmann::json::object();
  auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json::object();
}

void record_manifest(const std::string& dataroot, const std::string& name, nlohmann::json entry) {
  auto m = read_manifest(dataroot);
  char stamp[32];
  std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  entry["created"] = stamp;
  m[name] = std::move(entry);
  write_json_atomic(manifest_path(dataroot), m);
}

nlohmann::json dataset_provenance(const std::string& dataroot, const std::string& name) {
  nlohmann::json p = {{"name", name}, {"path", dataroot}, {"synthetic", "unknown"}};
  auto m = read_manifest(dataroot);
  if (m.contains(name) && m[name].is_object())
    for (auto& [k, v] : m[name].items()) p[k] = v;
  const fetch::DatasetSource* source = fetch::find_dataset_source(name);
  if (p["synthetic"] == true && source && !source->files.empty()) p["stand_in"] = kGeneratedData;
  return p;
}

}  // namespace milabench
