#include "run/result_keys.hpp"

#include <fmt/format.h>
#include <torch/cuda.h>

#include <cmath>
#include <cstdlib>
#include <ctime>

#include "devices/nvml.hpp"
#include "monitor/inventory.hpp"
#include "results/result_record.hpp"
#include "results/version.hpp"

extern char** environ;

namespace milabench {

namespace {

nlohmann::json recorded_environ() {
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    std::string k = kv.substr(0, eq);
    if (k == "MILARUN_ISOLATION") continue;  // recorded, checked, under "isolation"
    if (k.rfind("MILARUN", 0) == 0 || k.rfind("CUDA", 0) == 0 || k.find("NUM_THREADS") != std::string::npos ||
        k.rfind("SLURM", 0) == 0 || k == "OPENBLAS_CORETYPE")
      env[k] = kv.substr(eq + 1);
  }
  return env;
}

// The ids of CUDA_VISIBLE_DEVICES, else of MILARUN_CPU_PARTITION, else "".
std::string visible_device_list() {
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  const char* part = std::getenv("MILARUN_CPU_PARTITION");
  return cvd ? cvd : part ? part : "";
}

}  // namespace

nlohmann::json result_header(const RunIdentity& id, const WorkloadInfo& info) {
  nlohmann::json r;
  write_result_identity(r, id.name, id.job_id, visible_device_list());
  r["call"] = id.call;
  r["experiment"] = info.experiments.front();
  r["workload"] = info.name;
  r["count_unit"] = info.count_unit;
  r["dataroot"] = id.dataroot;
  r["outdir"] = id.outdir;
  auto inv = machine_inventory();
  inv["libtorch_version"] = TORCH_VERSION;
  r["hostname"] = inv["hostname"];
  r["inventory"] = inv;
  r["environ"] = recorded_environ();
  r["isolation"] = isolation_record();
  r["arguments"] = id.arguments;
  r["milarun"] = version_record();
  r["gpu_monitor"] = nlohmann::json::object();
  r["metrics"] = nlohmann::json::object();
  return r;
}

void add_device_keys(nlohmann::json& r, const TorchSettings& torch, const TorchArgs&) {
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  r["cuda"] = torch.cuda;
  r["device_count"] = torch.cuda ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
  std::string name;
  if (torch.cuda) {
    // The first visible GPU (the one torch uses) as NVML names it.
    Nvml& nvml = Nvml::instance();
    const std::string first = cvd ? std::string(cvd).substr(0, std::string(cvd).find(',')) : "0";
    for (int i = 0, n = nvml.device_count(); i < n && name.empty(); ++i)
      if (auto g = nvml.info(i); g && (std::to_string(i) == first || g->uuid == first)) name = g->name;
    if (name.empty()) name = "cuda";
  } else {
    name = r.value("inventory", nlohmann::json::object()).value("cpu_model", std::string("cpu"));
  }
  r["gpu"] = name;
}

std::string python_datetime_string(double epoch_s) {
  const auto secs = static_cast<std::time_t>(std::floor(epoch_s));
  const auto us = static_cast<long>(std::lround((epoch_s - std::floor(epoch_s)) * 1e6));
  std::time_t s = secs + (us >= 1000000 ? 1 : 0);
  std::tm tm{};
  localtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  const long frac = us % 1000000;
  return frac == 0 ? std::string(buf) : fmt::format("{}.{:06d}", buf, frac);
}

nlohmann::json train_timing(const RateMeter& meter, const nlohmann::json& metrics, double wall_offset) {
  nlohmann::json t = meter.to_json();
  t["type"] = "milabench.experiment.RateLogger";
  t["start"] = meter.started() ? nlohmann::json(python_datetime_string(meter.first_start() + wall_offset)) : nullptr;
  t["end"] = meter.started() ? nlohmann::json(python_datetime_string(meter.last_end() + wall_offset)) : nullptr;
  nlohmann::json m = nlohmann::json::object();
  if (metrics.is_object())
    for (const auto& [k, v] : metrics.items())
      if (k != "count" && k != "eta" && k != "rate") m[k] = v;
  t["metrics"] = m;
  return t;
}

}  // namespace milabench
