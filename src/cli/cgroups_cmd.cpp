#include "cli/cgroups_cmd.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <ostream>
#include <string>

#include "devices/gpu_ids.hpp"
#include "launch/cgroups.hpp"
#include "launch/devices.hpp"
#include "launch/student_groups.hpp"
#include "launch/topology.hpp"
#include "sys/cpu_topology.hpp"

namespace milabench {

namespace {

// MemTotal in bytes, capped by the memory hierarchy's own limit where it has one.
int64_t usable_memory_bytes(const StudentGroups& g, const std::string& parent) {
  int64_t total = 0;
  std::ifstream in("/proc/meminfo");
  std::string key;
  long long kb = 0;
  while (in >> key >> kb) {
    if (key == "MemTotal:") total = kb * 1024;
    in.ignore(1 << 10, '\n');
  }
  GroupInfo root = read_group(g.roots(), g.version(), parent.empty() ? "." : parent);
  if (root.memory_limit_bytes && *root.memory_limit_bytes < total) total = *root.memory_limit_bytes;
  return total;
}

std::string mib(const std::optional<int64_t>& b) {
  return b ? fmt::format("{} MiB", *b / (1024 * 1024)) : std::string("unlimited");
}

// One warning per pair of groups that hold threads of the same cores (the
// original's cgroup_setup.sh made such groups on two-thread servers).
std::vector<std::string> shared_core_lines(const std::vector<StudentGroupStatus>& groups) {
  std::vector<std::vector<int>> sets;
  std::vector<int> all;
  for (const auto& g : groups) {
    sets.push_back(g.info.cpus);
    all.insert(all.end(), g.info.cpus.begin(), g.info.cpus.end());
  }
  std::string why;
  const auto siblings = read_thread_siblings(kCpuSysfsRoot, all, why);
  std::vector<std::string> lines;
  if (!siblings) return lines;
  for (const auto& s : shared_cores(sets, *siblings))
    lines.push_back(fmt::format(
        "warning: {} and {} hold threads of the same {} core(s) (CPUs {} and {} are one core's): runs on them in "
        "parallel slow each other; groups made by `milarun cgroups setup` keep each core's threads in one group",
        groups[s.first].info.name, groups[s.second].info.name, s.cores, s.cpu_in_first, s.cpu_in_second));
  return lines;
}

}  // namespace

CLI::App* add_cgroups_command(CLI::App& app, CgroupsCmdOptions& o) {
  auto* c = app.add_subcommand("cgroups", "set up, show or remove the per-device student cgroups");
  c->add_option("action", o.action, "setup | status | teardown")
      ->required()
      ->check(CLI::IsMember({"setup", "status", "teardown"}));
  c->add_option(
      "--devices", o.devices,
      "number of groups (default: one per visible GPU; without GPUs, the CPU partition rule of docs/isolation.md)");
  c->add_option("--memory-mb", o.memory_mb, "memory limit per group in MiB (default: 90% of RAM / devices)");
  c->add_option("--parent", o.parent, "make the groups under this cgroup folder (default: the hierarchy root)");
  c->add_option("--marker", o.marker, "where setup records what it made (default: " + default_marker_path() + ")");
  return c;
}

int run_cgroups_command(const CgroupsCmdOptions& o, std::ostream& out, std::ostream& err) {
  CgroupRoots roots = detect_cgroup_roots();
  StudentGroups groups(roots, o.marker.empty() ? default_marker_path() : o.marker);
  try {
    if (o.action == "teardown") {
      for (const auto& l : groups.teardown()) out << l << "\n";
      return 0;
    }
    if (o.action == "status") {
      out << fmt::format("cgroups: {} (cpuset v1: \"{}\", memory v1: \"{}\", cgroup2: \"{}\")\n",
                         version_name(groups.version()), roots.cpuset_v1, roots.memory_v1, roots.unified);
      auto st = groups.status(o.parent);
      if (st.empty()) out << "no student groups (make them with `milarun cgroups setup`)\n";
      for (const auto& s : st)
        out << fmt::format("{:<12} cpus {:<8} mems {:<4} memory {:<14} processes {:<3} oom kills {}{}\n", s.info.name,
                           cpu_list_string(s.info.cpus), s.info.mems, mib(s.info.memory_limit_bytes), s.info.tasks,
                           s.info.oom_kills ? std::to_string(*s.info.oom_kills) : "-",
                           s.made_by_milarun ? "  (made by milarun)" : "");
      for (const auto& line : shared_core_lines(st)) out << line << "\n";
      return 0;
    }
    if (o.devices < 0 || o.memory_mb < 0) {
      err << "milarun cgroups: --devices and --memory-mb must be positive\n";
      return 2;
    }
    auto gpus = detect_gpu_ids();
    int n = o.devices > 0 ? o.devices : default_device_count(gpus.size(), allowed_cpus().size());
    StudentSetup s;
    s.cpu_sets = device_cpu_partitions(gpus, n);
    s.parent = o.parent;
    s.memory_bytes_each = o.memory_mb > 0 ? static_cast<int64_t>(o.memory_mb * 1024 * 1024)
                                          : static_cast<int64_t>(usable_memory_bytes(groups, o.parent) * 0.9 / n);
    for (const auto& l : groups.setup(s)) out << l << "\n";
    for (const auto& line : shared_core_lines(groups.status(o.parent))) out << line << "\n";  // groups kept as found
    return 0;
  } catch (const std::exception& e) {
    err << "milarun cgroups " << o.action << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace milabench
