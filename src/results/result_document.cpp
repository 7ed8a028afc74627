#include "results/result_document.hpp"

#include "results/result_record.hpp"

namespace milabench {
using nlohmann::json;

json result_json(const ResultDocument& d) {
  json doc = json::object();
  if (d.request) {
    doc["experiment"] = d.request->experiment;
    doc["dataroot"] = d.request->dataroot;
    doc["arguments"] = d.request->arguments;
    doc["environ"] = d.request->environ;
  }
  if (d.description) {
    const RunDescription& h = *d.description;
    doc["call"] = h.call;
    doc["workload"] = h.workload;
    doc["count_unit"] = h.count_unit;
    doc["outdir"] = h.outdir;
    doc["hostname"] = h.hostname;
    doc["inventory"] = h.inventory;
    doc["milarun"] = h.milarun;
  }
  if (d.device) {
    doc["gpu"] = d.device->gpu;
    doc["device_count"] = d.device->device_count;
    doc["cuda"] = d.device->cuda;
  }
  if (d.isolation) doc["isolation"] = *d.isolation;
  if (d.gpu_monitor) doc["gpu_monitor"] = *d.gpu_monitor;
  if (d.monitor) doc["monitor"] = *d.monitor;
  doc["metrics"] = json::object();
  write_workload_outputs(doc, d.outputs);
  doc["timings"] = d.timings;
  if (d.rss_peak_mb) doc["memory"] = {{"rss_peak_mb", *d.rss_peak_mb}};
  if (d.wall_time) doc["wall_time"] = *d.wall_time;
  if (!d.log.empty()) doc["log"] = d.log;
  if (!d.failed_group_member.empty()) doc["failed_group_member"] = d.failed_group_member;
  if (d.extra.is_object()) doc.update(d.extra, true);
  write_result_identity(doc, d.name, d.job_id, d.device_list);
  write_result_outcome(doc, d.failure, d.error);
  return doc;
}

}  // namespace milabench
