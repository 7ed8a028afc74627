#include "launch/isolation.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>

#include "launch/devices.hpp"
#include "sys/cpu_topology.hpp"

namespace milabench {

namespace {

nlohmann::json base_record(const char* kind, const std::vector<int>& cpus) {
  return {{"kind", kind}, {"cpus", cpus}, {"cpu_list", cpu_list_string(cpus)}, {"memory_limit_mb", nullptr}};
}

// Affinity-only plan; `reason` says why no cgroup ("" = none was asked for).
std::string use_affinity(ProcessSpec& spec, const std::string& reason) {
  IsolationPlan plan;
  nlohmann::json rec = base_record(spec.cpus.empty() ? "none" : "affinity", spec.cpus);
  if (!spec.cgroup.empty()) rec["cgroup_requested"] = spec.cgroup;
  if (!reason.empty()) rec["reason"] = reason;
  plan.record = rec.dump();
  spec.isolation = plan;
  return reason;
}

std::string writable_procs(const std::string& dir, std::string& why) {
  std::string f = dir + "/cgroup.procs";
  if (!is_directory(dir)) {
    why = fmt::format(
        "cgroup {} does not exist (create the groups with `milarun cgroups setup` or "
        "scripts/cgroup_setup.sh)",
        dir);
  } else if (::access(f.c_str(), W_OK) != 0) {
    why = fmt::format("cannot write {} (not root?)", f);
  }
  return f;
}

}  // namespace

std::string resolve_isolation(ProcessSpec& spec, const CgroupRoots& roots, CgroupVersion v) {
  if (spec.cgroup.empty()) return use_affinity(spec, "");
  CgroupRef ref;
  try {
    ref = parse_cgroup_ref(spec.cgroup);
  } catch (const CgroupError& e) {
    return use_affinity(spec, e.what());
  }
  if (!ref.cpuset && !ref.memory) return use_affinity(spec, "");
  if (v == CgroupVersion::None)
    return use_affinity(spec, fmt::format("cgroups not usable here: v1 cpuset+memory not mounted and no cgroup2 "
                                          "mount with those controllers (cgroup2 at \"{}\")",
                                          roots.unified));
  if (ref.name.find(',') != std::string::npos)
    return use_affinity(spec,
                        fmt::format("cgroup \"{}\" spans several devices; there is no single group for it", ref.name));
  CgroupDirs d = group_dirs(roots, v, ref.name);
  std::string why;
  std::vector<std::string> join;
  if (ref.cpuset) join.push_back(writable_procs(d.cpuset, why));
  if (ref.memory && why.empty() && (v == CgroupVersion::V1 || !ref.cpuset))
    join.push_back(writable_procs(d.memory, why));
  if (!why.empty()) return use_affinity(spec, why);

  GroupInfo g = read_group(roots, v, ref.name);
  IsolationPlan plan;
  plan.join_files = join;
  if (ref.cpuset && !g.cpus.empty()) {
    spec.cpus = g.cpus;
    plan.set_affinity = false;  // the cpuset sets the affinity on join
  }
  nlohmann::json rec = base_record("cgroup", spec.cpus);
  rec["cgroup"] = spec.cgroup;
  rec["cgroup_version"] = version_name(v);
  nlohmann::json paths = nlohmann::json::object();
  if (ref.cpuset) paths["cpuset"] = d.cpuset;
  if (ref.memory) {
    paths["memory"] = d.memory;
    if (g.memory_limit_bytes) rec["memory_limit_mb"] = static_cast<double>(*g.memory_limit_bytes) / (1024.0 * 1024.0);
    plan.oom_counter = oom_counter_file(d.memory, v);
  }
  rec["paths"] = paths;
  plan.record = rec.dump();
  nlohmann::json fb = base_record("affinity", spec.cpus);
  fb["cgroup_requested"] = spec.cgroup;
  fb["reason"] = "joining the cgroup failed in the child (see its log)";
  plan.fallback_record = fb.dump();
  spec.isolation = plan;
  return "";
}

std::string resolve_all_isolation(std::vector<std::vector<ProcessSpec>>& waves, const CgroupRoots& roots,
                                  CgroupVersion v) {
  int fallbacks = 0, total = 0;
  std::string first;
  for (auto& wave : waves)
    for (auto& spec : wave) {
      ++total;
      std::string why = resolve_isolation(spec, roots, v);
      if (why.empty()) continue;
      if (fallbacks++ == 0) first = fmt::format("{} J{}: {}", spec.name, spec.job_id, why);
    }
  if (fallbacks == 0) return "";
  return fmt::format(
      "warning: cgroups not used for {} of {} processes, which run with CPU affinity only "
      "(first: {}); pass --no-cgexec to run without cgroups on purpose",
      fallbacks, total, first);
}

std::string shared_core_warning(const std::vector<std::vector<ProcessSpec>>& waves, const ThreadSiblings& siblings) {
  for (const auto& wave : waves) {
    std::vector<std::vector<int>> sets;
    for (const auto& spec : wave) sets.push_back(spec.cpus);
    const auto shared = shared_cores(sets, siblings);
    if (shared.empty()) continue;
    const auto& s = shared.front();
    const ProcessSpec &a = wave[s.first], &b = wave[s.second];
    return fmt::format(
        "warning: runs that start together share CPU cores: {} J{} (CPUs {}) and {} J{} (CPUs {}) hold threads of "
        "the same {} core(s) (CPUs {} and {} are one core's), so they slow each other and their results will be "
        "flagged CONTENDED; groups made by `milarun cgroups setup` keep each core's threads in one group",
        a.name, a.job_id, cpu_list_string(a.cpus), b.name, b.job_id, cpu_list_string(b.cpus), s.cores, s.cpu_in_first,
        s.cpu_in_second);
  }
  return "";
}

std::string shared_core_warning(const std::vector<std::vector<ProcessSpec>>& waves) {
  std::set<int> cpus;
  for (const auto& wave : waves)
    for (const auto& spec : wave) cpus.insert(spec.cpus.begin(), spec.cpus.end());
  std::string why;
  const auto siblings = read_thread_siblings(kCpuSysfsRoot, {cpus.begin(), cpus.end()}, why);
  return siblings ? shared_core_warning(waves, *siblings) : "";
}

}  // namespace milabench
