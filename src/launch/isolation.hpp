// Deciding, before launch, how each process is confined: its cgroup (from the
// profile's template) when usable, else CPU affinity; and what is recorded.
#pragma once
#include <string>
#include <vector>

#include "launch/cgroups.hpp"
#include "launch/process.hpp"
#include "sys/cpu_topology.hpp"

namespace milabench {

// Fills spec.isolation from spec.cgroup and spec.cpus. When the group is
// usable (hierarchy mounted, group folder present, cgroup.procs writable):
// the child will join it, its cpus become the group's cpuset.cpus (so thread
// counts follow the group) and the record says kind "cgroup". Otherwise the
// child is pinned to spec.cpus (kind "affinity", or "none" without cpus) and
// the returned one-line reason says why the cgroup was not used ("" when it
// was, or when spec.cgroup is empty: nothing was asked for).
std::string resolve_isolation(ProcessSpec& spec, const CgroupRoots& roots, CgroupVersion v);

// resolve_isolation over every spec of `waves`; returns "" or one warning
// line for the whole run (how many processes fall back, and the first reason).
std::string resolve_all_isolation(std::vector<std::vector<ProcessSpec>>& waves, const CgroupRoots& roots,
                                  CgroupVersion v);

// "" or one warning line when two processes of one wave (runs that start
// together) hold threads of the same cores (`siblings`: the machine's thread
// siblings of every spec's cpus): the first such pair, naming both and their
// CPUs. Their parallel runs slow each other and are flagged CONTENDED (the
// original's cgroup_setup.sh split cores so on two-thread servers; ours
// keep cores whole, launch/topology.hpp).
std::string shared_core_warning(const std::vector<std::vector<ProcessSpec>>& waves, const ThreadSiblings& siblings);

// The same with this machine's thread siblings (/sys/devices/system/cpu);
// "" when they cannot be read.
std::string shared_core_warning(const std::vector<std::vector<ProcessSpec>>& waves);

}  // namespace milabench
