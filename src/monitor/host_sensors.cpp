#include "monitor/host_sensors.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace milabench {

namespace {

std::optional<std::string> first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

double status_kb(const std::string& status, const char* key) {
  std::istringstream in(status);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::atof(line.c_str() + std::strlen(key));
  return 0.0;
}

}  // namespace

std::optional<ProcessReading> read_process(const std::string& proc_dir) {
  std::ifstream stat_in(proc_dir + "/stat");
  std::string stat;
  if (!std::getline(stat_in, stat)) return std::nullopt;
  // Fields after the command name (which may hold spaces) start after the last ')'.
  auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::vector<std::string> f;
  for (std::string w; fields >> w && f.size() < 15;) f.push_back(w);
  if (f.size() < 13) return std::nullopt;
  char* end_u = nullptr;
  char* end_s = nullptr;
  const double utime = std::strtod(f[11].c_str(), &end_u), stime = std::strtod(f[12].c_str(), &end_s);
  if (*end_u || *end_s) return std::nullopt;  // fields 14, 15 are not numbers: not a stat file
  static const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  ProcessReading r;
  r.cpu_time_s = (utime + stime) / ticks;               // utime, stime (fields 14, 15)
  r.major_faults = std::strtod(f[9].c_str(), nullptr);  // majflt (field 12), all threads

  std::ifstream status_in(proc_dir + "/status");
  std::stringstream ss;
  ss << status_in.rdbuf();
  r.rss_mb = status_kb(ss.str(), "VmRSS:") / 1024.0;
  r.rss_peak_mb = status_kb(ss.str(), "VmHWM:") / 1024.0;
  return r;
}

std::vector<RaplDomain> find_rapl_packages(const std::string& powercap_root, std::string& why_none) {
  std::vector<RaplDomain> out;
  DIR* d = opendir(powercap_root.c_str());
  if (!d) {
    why_none = powercap_root + " not present (no RAPL powercap driver)";
    return out;
  }
  int unreadable = 0;
  std::vector<std::string> entries;
  while (dirent* e = readdir(d)) entries.push_back(e->d_name);
  closedir(d);
  std::sort(entries.begin(), entries.end());
  for (const auto& n : entries) {
    // Packages are "<vendor>-rapl:N"; sub-domains ("intel-rapl:0:1") are skipped.
    auto colon = n.find(':');
    if (n.find("-rapl:") == std::string::npos || n.find(':', colon + 1) != std::string::npos) continue;
    std::string dir = powercap_root + "/" + n;
    RaplDomain dom;
    dom.name = first_line(dir + "/name").value_or(n);
    if (dom.name.rfind("package", 0) != 0) continue;
    dom.energy_file = dir + "/energy_uj";
    if (auto m = first_line(dir + "/max_energy_range_uj")) dom.max_range_uj = std::strtoull(m->c_str(), nullptr, 10);
    if (!read_energy_uj(dom)) {
      ++unreadable;
      continue;
    }
    out.push_back(dom);
  }
  if (out.empty())
    why_none =
        unreadable > 0 ? "RAPL energy_uj not readable (needs root)" : "no RAPL package domain under " + powercap_root;
  return out;
}

std::optional<uint64_t> read_energy_uj(const RaplDomain& d) {
  auto line = first_line(d.energy_file);
  if (!line || line->empty() || line->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::strtoull(line->c_str(), nullptr, 10);
}

double energy_delta_j(uint64_t before_uj, uint64_t after_uj, uint64_t max_range_uj) {
  uint64_t d = after_uj >= before_uj ? after_uj - before_uj
                                     : (max_range_uj > before_uj ? max_range_uj - before_uj + after_uj : 0);
  return d / 1e6;
}

}  // namespace milabench
