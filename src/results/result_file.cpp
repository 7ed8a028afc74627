#include "results/result_file.hpp"

#include <dirent.h>
#include <sched.h>
#include <fcntl.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "monitor/nvml.hpp"

namespace milabench {

std::string result_file_name(const std::string& name, const std::string& job_id, bool failed) {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  std::tm tm{};
  localtime_r(&tv.tv_sec, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return fmt::format("{}.J{}{}.{}-{:06d}.json", name, job_id, failed ? ".FAIL" : "", stamp,
                     static_cast<long>(tv.tv_usec));
}

void write_text_atomic(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
  size_t off = 0;
  while (off < text.size()) {
    ssize_t w = ::write(fd, text.data() + off, text.size() - off);
    if (w < 0) {
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error(fmt::format("cannot write {}: {}", tmp, std::strerror(e)));
    }
    off += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(e)));
  }
}

void write_json_atomic(const std::string& path, const nlohmann::json& doc) {
  write_text_atomic(path, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

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
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &set)) cpus.push_back(i);
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
