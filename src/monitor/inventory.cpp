#include "monitor/inventory.hpp"

#include <dirent.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "devices/nvml.hpp"
#include "sys/cpus.hpp"

namespace milabench {

static std::string proc_field(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      auto v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "";
}

nlohmann::json isolation_record() {
  const std::vector<int> cpus = allowed_cpus();
  nlohmann::json rec;
  if (const char* env = std::getenv("MILARUN_ISOLATION")) rec = nlohmann::json::parse(env, nullptr, false);
  if (!rec.is_object() || !rec.contains("kind")) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    rec = {{"kind", static_cast<long>(cpus.size()) < online ? "affinity" : "none"},
           {"cpus", cpus},
           {"memory_limit_mb", nullptr}};
    if (std::getenv("MILARUN_ISOLATION")) rec["reason"] = "MILARUN_ISOLATION is not valid JSON";
  }
  rec["cpus_observed"] = cpus;
  return rec;
}

std::string nvidia_driver_version(const std::string& line) {
  const auto k = line.find("Kernel Module");
  if (k == std::string::npos) return "";
  std::istringstream words(line.substr(k));
  std::string w;
  while (words >> w)
    if (std::isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string::npos &&
        w.find_first_not_of("0123456789.") == std::string::npos)
      return w;
  return "";
}

nlohmann::json gpu_power_limits(const Nvml& nvml) {
  nlohmann::json out = nlohmann::json::array();
  auto watts = [](const std::optional<double>& w) { return w ? nlohmann::json(*w) : nlohmann::json(nullptr); };
  for (int i = 0, n = nvml.device_count(); i < n; ++i)
    if (auto g = nvml.info(i))
      out.push_back({{"limit_w", watts(g->power_limit_w)}, {"default_w", watts(g->default_power_limit_w)}});
  return out;
}

nlohmann::json gpu_mig(const Nvml& nvml) {
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0, n = nvml.device_count(); i < n; ++i)
    if (auto g = nvml.info(i))
      out.push_back(
          {{"mig", g->mig ? nlohmann::json(*g->mig) : nlohmann::json(nullptr)}, {"instances", g->mig_devices}});
  return out;
}

std::vector<std::string> cpu_governors(const std::string& cpu_root) {
  std::set<std::string> found;
  if (DIR* d = opendir(cpu_root.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() < 4 || name.rfind("cpu", 0) != 0 || !std::isdigit(static_cast<unsigned char>(name[3]))) continue;
      std::ifstream in(cpu_root + "/" + name + "/cpufreq/scaling_governor");
      std::string g;
      if (in >> g) found.insert(g);
    }
    closedir(d);
  }
  return {found.begin(), found.end()};
}

std::optional<bool> cpu_boost(const std::string& cpu_root) {
  int v = 0;
  if (std::ifstream in(cpu_root + "/cpufreq/boost"); in >> v) return v != 0;
  if (std::ifstream in(cpu_root + "/intel_pstate/no_turbo"); in >> v) return v == 0;
  return std::nullopt;
}

double peak_rss_mb() {
  std::string v = proc_field("/proc/self/status", "VmHWM");
  return v.empty() ? 0.0 : std::stod(v) / 1024.0;  // kB -> MiB
}

nlohmann::json machine_inventory() {
  nlohmann::json inv;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  inv["hostname"] = host;
  inv["cpu_model"] = proc_field("/proc/cpuinfo", "model name");
  inv["cpu_count"] = std::thread::hardware_concurrency();
  std::string mem = proc_field("/proc/meminfo", "MemTotal");
  inv["ram_mb"] = mem.empty() ? 0.0 : std::stod(mem) / 1024.0;
  utsname u{};
  if (uname(&u) == 0) inv["kernel"] = std::string(u.sysname) + " " + u.release;
  nlohmann::json gpus = nlohmann::json::array();
  Nvml& nvml = Nvml::instance();
  for (int i = 0, n = nvml.device_count(); i < n; ++i)
    if (auto g = nvml.info(i)) gpus.push_back(g->name);
  if (gpus.empty()) {  // no NVML: the driver's /proc entries
    if (DIR* d = opendir("/proc/driver/nvidia/gpus")) {
      while (dirent* e = readdir(d)) {
        if (e->d_name[0] == '.') continue;
        gpus.push_back(proc_field(std::string("/proc/driver/nvidia/gpus/") + e->d_name + "/information", "Model"));
      }
      closedir(d);
    }
  }
  inv["gpus"] = gpus;
  inv["gpu_power_limits"] = gpu_power_limits(nvml);
  inv["gpu_mig"] = gpu_mig(nvml);
  inv["cpu_governors"] = cpu_governors();
  const auto boost = cpu_boost();
  inv["cpu_boost"] = boost ? nlohmann::json(*boost) : nlohmann::json(nullptr);
  inv["driver"] = nullptr;
  std::ifstream ver("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(ver, line)) {
    const std::string v = nvidia_driver_version(line);
    if (!v.empty()) inv["driver"] = v;
  }
  return inv;
}

}  // namespace milabench
