#include "launch/student_groups.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "launch/devices.hpp"
#include "launch/process.hpp"
#include "sys/cpu_topology.hpp"
#include "sys/dirs.hpp"

namespace milabench {

namespace {

constexpr long kCgroupMagic = 0x27e0eb;     // CGROUP_SUPER_MAGIC
constexpr long kCgroup2Magic = 0x63677270;  // CGROUP2_SUPER_MAGIC

// What setup made: folders in creation order, subtree_control files it
// turned controllers on in.
struct Marker {
  std::vector<std::string> created;
  std::vector<std::string> enabled;
};

Marker load_marker(const std::string& path) {
  Marker m;
  std::ifstream in(path);
  if (!in) return m;
  try {
    auto j = nlohmann::json::parse(in);
    m.created = j.value("created", std::vector<std::string>{});
    m.enabled = j.value("enabled_controllers", std::vector<std::string>{});
  } catch (const std::exception& e) {
    throw CgroupError(
        fmt::format("{}: unreadable marker ({}); remove it after checking the groups by hand", path, e.what()));
  }
  return m;
}

void save_marker(const std::string& path, const Marker& m) {
  if (m.created.empty() && m.enabled.empty()) {
    ::unlink(path.c_str());
    return;
  }
  auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) make_dirs(path.substr(0, slash));
  nlohmann::json j = {{"created", m.created}, {"enabled_controllers", m.enabled}};
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << j.dump(2) << "\n";
    if (!out) throw CgroupError(fmt::format("cannot write marker {}: {}", tmp, std::strerror(errno)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    throw CgroupError(fmt::format("cannot write marker {}: {}", path, std::strerror(errno)));
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string join_path(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "/" + name;
}

// mkdir that records the folder in the marker (saved at once).
void make_group_dir(const std::string& dir, Marker& m, const std::string& marker) {
  if (::mkdir(dir.c_str(), 0755) != 0)
    throw CgroupError(fmt::format("cannot create cgroup {}: {}{}", dir, std::strerror(errno),
                                  errno == EACCES || errno == EPERM ? " (run as root)" : ""));
  m.created.push_back(dir);
  save_marker(marker, m);
}

// Turns on cpuset and memory for the children of `dir` (v2) unless already on.
void enable_v2_controllers(const std::string& dir, Marker& m, const std::string& marker) {
  std::string file = dir + "/cgroup.subtree_control";
  std::string on = read_file_trimmed(file).value_or("");
  if (on.find("cpuset") != std::string::npos && on.find("memory") != std::string::npos) return;
  write_file(file, "+cpuset +memory");
  m.enabled.push_back(file);
  save_marker(marker, m);
}

// v1: a new cpuset folder must get cpus and mems before it can hold children or tasks.
void inherit_cpuset(const std::string& dir) {
  std::string up = dir.substr(0, dir.rfind('/'));
  for (const char* f : {"cpuset.cpus", "cpuset.mems"})
    write_file(dir + "/" + f, read_file_trimmed(up + "/" + f).value_or(""));
}

// Removes a folder made by setup. On cgroupfs rmdir is enough; on a plain
// folder (fake roots in tests) the files setup wrote go first.
bool remove_group_dir(const std::string& dir, std::string& why) {
  struct statfs fs {};
  bool cgroupfs = ::statfs(dir.c_str(), &fs) == 0 && (fs.f_type == kCgroupMagic || fs.f_type == kCgroup2Magic);
  if (!cgroupfs) {
    if (DIR* d = opendir(dir.c_str())) {
      while (dirent* e = readdir(d))
        if (e->d_type == DT_REG) ::unlink((dir + "/" + e->d_name).c_str());
      closedir(d);
    }
  }
  if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return true;
  why = errno == EBUSY ? "still holds processes" : std::strerror(errno);
  return false;
}

}  // namespace

std::string default_marker_path() { return "/run/milabench/cgroups.json"; }

StudentGroups::StudentGroups(CgroupRoots roots, std::string marker_path)
    : roots_(std::move(roots)), marker_(std::move(marker_path)), version_(usable_version(roots_)) {}

std::vector<std::string> StudentGroups::setup(const StudentSetup& s) {
  if (version_ == CgroupVersion::None)
    throw CgroupError(fmt::format(
        "no usable cgroups: v1 cpuset+memory hierarchies not mounted (cpuset: \"{}\", memory: \"{}\") and the "
        "cgroup2 mount \"{}\" does not offer the cpuset and memory controllers; run jobs with --no-cgexec",
        roots_.cpuset_v1, roots_.memory_v1, roots_.unified));
  if (s.cpu_sets.empty()) throw CgroupError("cgroups setup: no devices to make groups for");
  if (s.memory_bytes_each <= 0) throw CgroupError("cgroups setup: memory per group must be positive");
  for (const auto& c : s.cpu_sets)
    if (c.empty()) throw CgroupError("cgroups setup: a device got no CPUs (more devices than CPUs?)");

  Marker m = load_marker(marker_);
  std::vector<std::string> lines;
  bool v1 = version_ == CgroupVersion::V1;
  std::vector<std::string> roots =
      v1 ? std::vector<std::string>{roots_.cpuset_v1, roots_.memory_v1} : std::vector<std::string>{roots_.unified};

  // The parent chain, made where missing.
  std::string rel;
  if (!v1) enable_v2_controllers(roots_.unified, m, marker_);
  std::string parent = s.parent;
  while (!parent.empty()) {
    auto slash = parent.find('/');
    rel = join_path(rel, parent.substr(0, slash));
    parent = slash == std::string::npos ? "" : parent.substr(slash + 1);
    for (std::size_t h = 0; h < roots.size(); ++h) {
      std::string dir = roots[h] + "/" + rel;
      if (is_directory(dir)) continue;
      make_group_dir(dir, m, marker_);
      if (v1 && h == 0) inherit_cpuset(dir);
    }
    if (!v1) enable_v2_controllers(roots_.unified + "/" + rel, m, marker_);
  }

  for (std::size_t i = 0; i < s.cpu_sets.size(); ++i) {
    std::string name = join_path(s.parent, s.prefix + std::to_string(i));
    CgroupDirs d = group_dirs(roots_, version_, name);
    bool exists = is_directory(d.cpuset) || is_directory(d.memory);
    if (exists) {
      bool ours = contains(m.created, d.cpuset) || contains(m.created, d.memory);
      lines.push_back(fmt::format("{}: exists{}, kept as it is", name, ours ? " (made by milarun)" : ""));
      continue;
    }
    std::string cpus = cpu_list_string(s.cpu_sets[i]);
    std::string mem = std::to_string(s.memory_bytes_each);
    std::string mems_src = (v1 ? roots_.cpuset_v1 : roots_.unified) + (s.parent.empty() ? "" : "/" + s.parent);
    std::string mems = read_file_trimmed(mems_src + "/cpuset.mems").value_or("");
    if (mems.empty()) mems = read_file_trimmed(mems_src + "/cpuset.mems.effective").value_or("0");
    make_group_dir(d.cpuset, m, marker_);
    write_file(d.cpuset + "/cpuset.cpus", cpus);
    write_file(d.cpuset + "/cpuset.mems", mems);
    if (v1) {
      make_group_dir(d.memory, m, marker_);
      write_file(d.memory + "/memory.limit_in_bytes", mem);
      // With swap accounting, also cap memory+swap so the limit cannot be dodged by swapping.
      if (::access((d.memory + "/memory.memsw.limit_in_bytes").c_str(), F_OK) == 0)
        write_file(d.memory + "/memory.memsw.limit_in_bytes", mem);
    } else {
      write_file(d.memory + "/memory.max", mem);
      if (::access((d.memory + "/memory.swap.max").c_str(), F_OK) == 0) write_file(d.memory + "/memory.swap.max", "0");
    }
    lines.push_back(fmt::format("{}: created ({}), cpus {}, mems {}, memory {} MiB", name, version_name(version_), cpus,
                                mems, s.memory_bytes_each / (1024 * 1024)));
  }
  return lines;
}

std::vector<StudentGroupStatus> StudentGroups::status(const std::string& parent, const std::string& prefix) const {
  std::map<int, std::string> names;
  std::vector<std::string> roots = {roots_.cpuset_v1, roots_.memory_v1};
  if (version_ == CgroupVersion::V2) roots = {roots_.unified};
  for (const auto& root : roots) {
    if (DIR* d = opendir((root + (parent.empty() ? "" : "/" + parent)).c_str())) {
      while (dirent* e = readdir(d)) {
        std::string n = e->d_name;
        if (n.rfind(prefix, 0) != 0 || n.size() == prefix.size()) continue;
        std::string idx = n.substr(prefix.size());
        if (idx.find_first_not_of("0123456789") != std::string::npos || idx.size() > 6) continue;
        names[std::stoi(idx)] = join_path(parent, n);
      }
      closedir(d);
    }
  }
  Marker m = load_marker(marker_);
  std::vector<StudentGroupStatus> out;
  for (const auto& [i, name] : names) {
    StudentGroupStatus st;
    st.info = read_group(roots_, version_, name);
    CgroupDirs d = group_dirs(roots_, version_, name);
    st.made_by_milarun = contains(m.created, d.cpuset) || contains(m.created, d.memory);
    out.push_back(std::move(st));
  }
  return out;
}

std::vector<std::string> StudentGroups::teardown() {
  Marker m = load_marker(marker_);
  std::vector<std::string> lines;
  Marker left;
  for (auto it = m.created.rbegin(); it != m.created.rend(); ++it) {
    std::string why;
    if (remove_group_dir(*it, why)) {
      lines.push_back("removed " + *it);
    } else {
      lines.push_back(fmt::format("kept {}: {}", *it, why));
      left.created.insert(left.created.begin(), *it);
    }
  }
  for (auto it = m.enabled.rbegin(); it != m.enabled.rend(); ++it) {
    try {
      write_file(*it, "-cpuset -memory");
      lines.push_back("turned off cpuset,memory in " + *it);
    } catch (const CgroupError& e) {
      // Other groups may use the controllers; leaving them on is harmless.
      lines.push_back(fmt::format("left cpuset,memory on in {} ({})", *it, e.what()));
    }
  }
  save_marker(marker_, left);
  if (lines.empty()) lines.push_back("nothing to remove: no groups made by milarun (marker " + marker_ + ")");
  return lines;
}

}  // namespace milabench
