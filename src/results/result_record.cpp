#include "results/result_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

#include "results/input_checks.hpp"
#include "results/stand_ins.hpp"

namespace milabench {
using nlohmann::json;

json device_ids_json(const std::string& list) {
  json out = json::array();
  std::stringstream ss(list);
  for (std::string id; std::getline(ss, id, ',');) {
    if (id.empty()) continue;
    const bool numeric = id.size() < 10 && id.find_first_not_of("0123456789") == std::string::npos;
    out.push_back(numeric ? json(std::stoi(id)) : json(id));
  }
  return out;
}

namespace {

std::string id_string(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return v.dump();
  return "";
}

double number_or_nan(const json& v) {
  return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::optional<std::string> env_value(const json& env, const char* key) {
  if (env.is_object() && env.contains(key) && env[key].is_string()) return env[key].get<std::string>();
  return std::nullopt;
}

// A time share's "window_share" (monitor/time_share.hpp) when it is a share:
// nullopt when absent, not a number, or outside 0..1.
std::optional<double> window_share(const json& share) {
  const json v = share.is_object() ? share.value("window_share", json()) : json();
  if (!v.is_number()) return std::nullopt;
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || x > 1) return std::nullopt;
  return x;
}

}  // namespace

std::optional<ResultRecord> parse_result_record(const json& doc, std::string* why) {
  if (!doc.is_object() || !doc.contains("name") || !doc["name"].is_string()) {
    if (why) *why = "not a result file (no \"name\" string)";
    return std::nullopt;
  }
  // 1 (the original's files have none, read as 1) .. ours: a newer or malformed version is not read as ours.
  if (auto v = doc.value("schema_version", json(1));
      !v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > kResultSchemaVersion) {
    if (why)
      *why = fmt::format(
          "schema_version {} is not one this milarun reads (a whole number from 1 to {}); update "
          "milarun or regenerate the file",
          terminal_safe(v.dump().substr(0, 20)), kResultSchemaVersion);
    return std::nullopt;
  }
  ResultRecord r;
  r.name = doc["name"].get<std::string>();
  for (const char* key : {"experiment", "workload"})
    if (r.experiment.empty() && doc.contains(key) && doc[key].is_string()) r.experiment = doc[key].get<std::string>();
  if (doc.contains("dataroot") && doc["dataroot"].is_string()) r.dataroot = doc["dataroot"].get<std::string>();
  if (doc.contains("arguments")) {
    const json& a = doc["arguments"];
    bool strings = a.is_array();
    for (const auto& x : a) strings = strings && x.is_string();
    if (!strings) {
      if (why) *why = "\"arguments\" is not a list of strings";
      return std::nullopt;
    }
    r.arguments = a.get<std::vector<std::string>>();
    r.arguments_recorded = true;
  }
  if (doc.contains("environ") && doc["environ"].is_object()) r.environ = doc["environ"];
  r.job_id = id_string(doc.value("job_id", json()));
  r.success = doc.value("success", json(false)) == json(true);
  if (auto k = doc.value("failure_kind", json()); k.is_string())
    r.failure_kind = parse_failure_kind(k.get<std::string>());
  r.sub_job = doc.value("sub_job", json(false)) == json(true) || doc.value("subjob", json(false)) == json(true);
  if (auto dc = doc.value("device_count", json()); dc.is_number_integer()) r.device_count = dc.get<int>();
  const json job = doc.value("job", json::object());
  if (job.is_object() && job.contains("partition_scheme") && job["partition_scheme"].is_object()) {
    const json t = job["partition_scheme"].value("type", json());
    if (t.is_string()) r.partition_scheme = t.get<std::string>();
  }
  r.visible_devices = env_value(r.environ, "CUDA_VISIBLE_DEVICES");
  r.cpu_partition = env_value(r.environ, "MILARUN_CPU_PARTITION");
  const json dist = doc.value("distributed", json::object());
  if (dist.is_object() && dist.contains("world_size") && dist["world_size"].is_number_integer())
    r.world_size = dist["world_size"].get<int>();
  const json timings = doc.value("timings", json::object());
  if (timings.is_object()) {
    for (const auto& [k, v] : timings.items()) {
      if (k.rfind("train", 0) != 0 || !v.is_object()) continue;
      TrainTiming t{k, {}, v};
      if (v.contains("rates") && v["rates"].is_array())
        for (const auto& x : v["rates"]) t.rates.push_back(number_or_nan(x));
      r.trains.push_back(std::move(t));
    }
    if (timings.contains("program") && timings["program"].is_object()) {
      const json t = timings["program"].value("time", json());
      if (t.is_number()) r.program_time = t.get<double>();
    }
  }
  if (doc.contains("metrics") && doc["metrics"].is_object()) r.metrics = doc["metrics"];
  if (auto sk = r.metrics.value("images_skipped", json()); sk.is_number() && sk.get<double>() > 0)
    r.images_skipped = sk.get<double>();
  if (doc.contains("gpu_monitor") && doc["gpu_monitor"].is_object()) r.gpu_monitor = doc["gpu_monitor"];
  const json monitor = doc.value("monitor", json());
  r.foreign_cpu_share = foreign_cpu_window_share(monitor);
  const json stall = monitor.is_object() ? monitor.value("memory_stall", json()) : json();
  r.memory_stall_share = window_share(stall);
  r.sibling_cpu_share = window_share(monitor.is_object() ? monitor.value("sibling_cpu", json()) : json());
  r.cpu_throttle_share = window_share(monitor.is_object() ? monitor.value("cpu_throttle", json()) : json());
  r.stopped_share = window_share(monitor.is_object() ? monitor.value("stopped", json()) : json());
  if (const json f = stall.is_object() ? stall.value("window_major_faults_per_s", json()) : json();
      f.is_number() && std::isfinite(f.get<double>()) && f.get<double>() >= 0)
    r.major_faults_per_s = f.get<double>();
  if (doc.value("cuda", json(false)) == json(true))
    for (const auto& [id, g] : r.gpu_monitor.items())
      if (auto v = window_share(g.is_object() ? g.value("slowdown", json()) : json()))
        r.gpu_slowdown_share = std::max(r.gpu_slowdown_share.value_or(0.0), *v);
  // A group's ranks can show on each other's GPUs (CUDA IPC, NCCL): a group is checked on its CPUs only.
  if (doc.value("cuda", json(false)) == json(true) && r.world_size <= 1)
    for (const auto& [id, g] : r.gpu_monitor.items()) {
      const json p = g.is_object() ? g.value("compute_processes", json()) : json();
      const json n = p.is_object() ? p.value("window_max", json()) : json();
      if (n.is_number_integer())
        r.other_gpu_processes = std::max(r.other_gpu_processes.value_or(0), std::max(0, n.get<int>() - 1));
    }
  r.stand_ins = read_stand_ins(doc);
  if (r.metrics.contains("shortcuts") && r.metrics["shortcuts"].is_array())
    for (const auto& c : r.metrics["shortcuts"])
      if (c.is_string()) r.shortcuts.push_back(c.get<std::string>());
  const json mem = doc.value("memory", json::object());
  if (mem.is_object() && mem.contains("rss_peak_mb") && mem["rss_peak_mb"].is_number())
    r.rss_peak_mb = mem["rss_peak_mb"].get<double>();
  return r;
}

void write_result_identity(json& doc, const std::string& name, const std::string& job_id,
                           const std::string& device_list) {
  doc["schema_version"] = kResultSchemaVersion;
  doc["name"] = name;
  doc["job_id"] = job_id.empty() ? json(nullptr) : json(job_id);
  const json devices = device_ids_json(device_list);
  doc["devices"] = devices;
  doc["device"] = devices.size() == 1 ? devices[0] : json(nullptr);
}

void write_result_outcome(json& doc, std::optional<FailureKind> failure, const std::string& error) {
  doc["success"] = !failure;
  doc["error"] = failure ? json(error) : json(nullptr);
  if (failure)
    doc["failure_kind"] = failure_kind_name(*failure);
  else
    doc.erase("failure_kind");
}

std::optional<double> foreign_cpu_window_share(const json& monitor) {
  if (!monitor.is_object() || !monitor.contains("foreign_cpu")) return std::nullopt;
  const json& f = monitor["foreign_cpu"];
  auto v = window_share(f);
  if (!v) return std::nullopt;
  const json cpus = f.value("cpus", json()), usable = f.value("usable_cpus", json());
  if (!cpus.is_number() || !usable.is_number() || usable.get<double>() < cpus.get<double>()) return std::nullopt;
  return v;
}

json contention_readings(const ResultRecord& r) {
  auto value = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  return {{"cpu_share", value(r.foreign_cpu_share)},
          {"sibling_cpu_share", value(r.sibling_cpu_share)},
          {"memory_stall_share", value(r.memory_stall_share)},
          {"major_faults_per_s", value(r.major_faults_per_s)},
          {"cpu_throttle_share", value(r.cpu_throttle_share)},
          {"gpu_slowdown_share", value(r.gpu_slowdown_share)},
          {"other_gpu_processes", value(r.other_gpu_processes)},
          {"stopped_share", value(r.stopped_share)}};
}

std::vector<std::string> contention_signs(const ResultRecord& r) {
  std::vector<std::string> signs;
  auto over = [](const std::optional<double>& v) { return v && *v > kContendedShare; };
  if (over(r.foreign_cpu_share))
    signs.push_back(fmt::format("other processes used {:.0f}% of its CPUs", *r.foreign_cpu_share * 100));
  if (over(r.sibling_cpu_share))
    signs.push_back(fmt::format("other processes kept its cores' other hyperthreads busy {:.0f}% of the time",
                                *r.sibling_cpu_share * 100));
  if (over(r.memory_stall_share) && r.major_faults_per_s && *r.major_faults_per_s >= kContendedMajorFaultsPerS)
    signs.push_back(fmt::format("it read {:.0f} pages/s back from disk while memory stalls took {:.0f}% of the time",
                                *r.major_faults_per_s, *r.memory_stall_share * 100));
  if (over(r.cpu_throttle_share))
    signs.push_back(fmt::format("its CPUs ran throttled for heat {:.0f}% of the time", *r.cpu_throttle_share * 100));
  if (over(r.gpu_slowdown_share))
    signs.push_back(
        fmt::format("its GPU ran slowed down (heat or power brake) {:.0f}% of the time", *r.gpu_slowdown_share * 100));
  if (over(r.stopped_share))
    signs.push_back(
        fmt::format("its process was stopped, not running at all, {:.0f}% of the time (SIGSTOP, a "
                    "debugger, a frozen cgroup)",
                    *r.stopped_share * 100));
  if (r.other_gpu_processes && *r.other_gpu_processes > 0)
    signs.push_back(fmt::format("{} other process{} held its GPU", *r.other_gpu_processes,
                                *r.other_gpu_processes == 1 ? "" : "es"));
  return signs;
}

bool ResultRecord::contended() const { return !contention_signs(*this).empty(); }

std::string contention_text(const ResultRecord& r) {
  const auto signs = contention_signs(r);
  std::string what;
  for (std::size_t i = 0; i < signs.size(); ++i)
    what += (i == 0 ? "" : i + 1 == signs.size() ? " and " : ", ") + signs[i];
  return what.empty() ? "" : what + " during its summary window";
}

double ResultRecord::skipped_share() const {
  if (!(images_skipped > 0)) return 0;
  const double count = trains.empty() ? NAN : number_or_nan(trains.front().doc.value("count", json()));
  return std::isfinite(count) && count >= 0 ? images_skipped / (images_skipped + count) : 1.0;
}

std::string ResultRecord::group() const {
  if (partition_scheme == "gpu-progression" && device_count) return name + "." + std::to_string(*device_count);
  return name;
}

std::string ResultRecord::pergpu_device() const {
  if (world_size > 1) return "";
  const std::optional<std::string>& ids = visible_devices ? visible_devices : cpu_partition;
  if (!ids || ids->empty() || ids->find(',') != std::string::npos) return "";
  return *ids;
}

}  // namespace milabench
