// Workload: one training benchmark. One workload per .cpp file, each listed
// once in registry.cpp (no static self-registration).
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace milabench {

class Session;

class Workload {
 public:
  virtual ~Workload() = default;
  // Registers the workload's own flags (with the original's defaults) on `app`.
  // --max-count, --sample-duration, --cuda/--no-cuda are registered by the
  // harness and must not be added here.
  virtual void add_options(CLI::App& app) = 0;
  // Trains until session.step() returns false. Throws on error (caught once
  // at the `milarun run` boundary and turned into a failed result).
  virtual void run(Session& session) = 0;
};

struct WorkloadInfo {
  std::string name;                     // short name, e.g. "polynome"
  std::vector<std::string> experiments; // e.g. "milarun.models.polynome:main"
  std::string count_unit;               // what --max-count counts, e.g. "samples"
  int64_t default_max_count;            // default --max-count
  std::function<std::unique_ptr<Workload>()> make;
};

// All workloads this build has (registry.cpp).
const std::vector<WorkloadInfo>& workload_registry();
// Finds by short name or experiment ("milarun.models.x:main", "milabench.models.x:main").
// Returns nullptr when unknown.
const WorkloadInfo* find_workload(const std::string& name_or_experiment);

}  // namespace milabench
