#include "monitor/memory_pressure.hpp"

#include <fstream>
#include <sstream>

namespace milabench {

std::optional<double> read_memory_stall_s(const std::string& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("full ", 0) != 0) continue;
    const auto at = line.find(" total=");
    if (at == std::string::npos) return std::nullopt;
    std::istringstream value(line.substr(at + 7));
    double us = 0;
    if (!(value >> us) || us < 0) return std::nullopt;
    return us / 1e6;
  }
  return std::nullopt;
}

std::optional<PressureSource> find_memory_pressure(const std::string& proc_dir, const std::string& cgroup_root,
                                                   const std::string& system_path, std::string& why) {
  std::ifstream cgroups(proc_dir + "/cgroup");
  for (std::string line; std::getline(cgroups, line);) {
    if (line.rfind("0::", 0) != 0) continue;  // the unified (v2) hierarchy
    const std::string group = line.substr(3);
    if (group == "/") break;  // the root group's stalls are the system's
    for (const std::string mount : {cgroup_root, cgroup_root + "/unified"}) {  // v2 alone, or hybrid
      const std::string path = mount + group + "/memory.pressure";
      if (read_memory_stall_s(path)) return PressureSource{path, "cgroup " + group};
    }
  }
  if (read_memory_stall_s(system_path)) return PressureSource{system_path, "system"};
  why = "no readable " + system_path + " (a kernel without pressure stall information, or booted with psi=0)";
  return std::nullopt;
}

}  // namespace milabench
