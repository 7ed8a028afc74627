// The one table of workloads in this build.
#include "workloads/workload.hpp"

namespace milabench {

std::unique_ptr<Workload> make_polynome();

const std::vector<WorkloadInfo>& workload_registry() {
  static const std::vector<WorkloadInfo> table = {
      {"polynome", {"milarun.models.polynome:main"}, "samples", 20000000, make_polynome},
  };
  return table;
}

const WorkloadInfo* find_workload(const std::string& name) {
  std::string key = name;
  const std::string alias = "milabench.models.";
  if (key.rfind(alias, 0) == 0) key = "milarun.models." + key.substr(alias.size());
  for (const auto& w : workload_registry()) {
    if (w.name == key) return &w;
    for (const auto& e : w.experiments)
      if (e == key) return &w;
  }
  return nullptr;
}

}  // namespace milabench
