#include "run/result_keys.hpp"

#include <fmt/format.h>
#include <torch/cuda.h>
#include <unistd.h>  // environ

#include <cmath>
#include <cstdlib>
#include <ctime>

#include "devices/nvml.hpp"
#include "monitor/inventory.hpp"
#include "results/result_record.hpp"
#include "results/version.hpp"

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
        k.rfind("SLURM", 0) == 0 || k == "OPENBLAS_CORETYPE" || k == "GOMP_SPINCOUNT" || k == "OMP_WAIT_POLICY")
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

ResultDocument harness_document(const RunIdentity& id, const WorkloadInfo& info) {
  ResultDocument d;
  d.name = id.name;
  d.job_id = id.job_id;
  d.device_list = visible_device_list();
  d.request = RunRequest{info.experiments.front(), id.dataroot, id.arguments, recorded_environ()};
  RunDescription h;
  h.call = id.call;
  h.workload = info.name;
  h.count_unit = info.count_unit;
  h.outdir = id.outdir;
  h.inventory = machine_inventory();
  h.inventory["libtorch_version"] = TORCH_VERSION;
  h.hostname = h.inventory.value("hostname", std::string());
  h.milarun = version_record();
  d.description = std::move(h);
  d.isolation = isolation_record();
  d.gpu_monitor = nlohmann::json::object();
  return d;
}

DeviceKeys device_keys(const TorchSettings& torch, const std::string& cpu_model) {
  DeviceKeys k;
  k.cuda = torch.cuda;
  k.device_count = torch.cuda ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
  if (!torch.cuda) {
    k.gpu = cpu_model;
    return k;
  }
  // The first visible GPU (the one torch uses) as NVML names it.
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  Nvml& nvml = Nvml::instance();
  const std::string first = cvd ? std::string(cvd).substr(0, std::string(cvd).find(',')) : "0";
  if (auto g = nvml.info(nvml.index_of(first))) k.gpu = g->name;
  if (k.gpu.empty()) k.gpu = "cuda";
  return k;
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
