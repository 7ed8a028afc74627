#include "store/run_row.hpp"

#include <cmath>
#include <stdexcept>

#include "report/summary.hpp"
#include "results/result_name.hpp"
#include "results/result_record.hpp"

namespace milabench::store {
using nlohmann::json;

namespace {

// "YYYYmmdd-HHMMSS-ffffff" -> "YYYY-mm-dd HH:MM:SS".
std::string stamp_text(const std::string& s) {
  return s.substr(0, 4) + "-" + s.substr(4, 2) + "-" + s.substr(6, 2) + " " + s.substr(9, 2) + ":" + s.substr(11, 2) +
         ":" + s.substr(13, 2);
}

json member(const json& doc, const char* key) { return doc.contains(key) ? doc[key] : json(); }

}  // namespace

RunRow run_row(const std::string& file, const json& doc) {
  std::string why;
  auto rec = parse_result_record(doc, &why);
  if (!rec) throw std::invalid_argument(why);
  RunRow r;
  r.test = rec->group();
  r.job_id = rec->job_id;
  r.device = rec->pergpu_device();
  r.counted = rec->counted();
  r.arguments = json(rec->arguments).dump();
  r.success = rec->success;
  if (rec->failure_kind) r.failure_kind = failure_kind_name(*rec->failure_kind);
  json rates = json::object();
  double sum = 0;
  int n = 0;
  for (const auto& t : rec->trains) {
    json list = json::array();
    for (double x : t.rates) list.push_back(std::isfinite(x) ? json(x) : json());
    rates[t.key] = list;
    const double p = perf_of_rates(t.rates);
    if (std::isfinite(p)) sum += p, ++n;
  }
  if (n > 0) r.perf = sum / n;
  r.rates = rates.dump();
  r.telemetry =
      json{{"gpu_monitor", rec->gpu_monitor}, {"monitor", member(doc, "monitor")}, {"memory", member(doc, "memory")}}
          .dump();
  json cuts = json::array();
  if (rec->metrics.contains("shortcuts") && rec->metrics["shortcuts"].is_array()) cuts = rec->metrics["shortcuts"];
  r.shortcuts = cuts.dump();
  const json ds = member(doc, "dataset");
  if (ds.is_object() && ds.contains("synthetic") && ds["synthetic"].is_boolean()) r.synthetic_data = ds["synthetic"];
  if (auto name = parse_result_file_name(file)) r.finished_at = stamp_text(name->stamp);
  const json host = member(doc, "hostname");
  if (host.is_string()) r.hostname = host;
  return r;
}

}  // namespace milabench::store
