#include "results/workload_outputs.hpp"

#include "results/stand_ins.hpp"

namespace milabench {

void write_workload_outputs(nlohmann::json& doc, const WorkloadOutputs& w) {
  if (!doc.is_object()) doc = nlohmann::json::object();
  if (!w.metrics.empty()) {
    if (!doc.contains("metrics") || !doc["metrics"].is_object()) doc["metrics"] = nlohmann::json::object();
    doc["metrics"].update(w.metrics, true);
  }
  if (w.model_parameters) doc["model"]["parameters"] = *w.model_parameters;
  if (w.dataset) {
    doc["dataset"] = *w.dataset;
    doc[kStandInsKey] = stand_ins_of_provenance(*w.dataset);
  }
  if (w.distributed) doc["distributed"] = *w.distributed;
  if (w.sub_job) doc["sub_job"] = true;
}

}  // namespace milabench
