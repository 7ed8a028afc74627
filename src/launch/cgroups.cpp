#include "launch/cgroups.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sys/cpu_topology.hpp"

namespace milabench {

std::optional<std::string> read_file_trimmed(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

void write_file(const std::string& path, const std::string& value) {
  // O_CREAT only matters for fake roots (plain folders); cgroupfs files exist.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw CgroupError(fmt::format("cannot open {} to write \"{}\": {}", path, value, std::strerror(errno)));
  ssize_t n = ::write(fd, value.data(), value.size());
  int e = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(value.size()))
    throw CgroupError(fmt::format("cannot write \"{}\" to {}: {}", value, path, std::strerror(n < 0 ? e : EIO)));
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

CgroupRoots detect_cgroup_roots(const std::string& mounts_file) {
  CgroupRoots r;
  std::ifstream in(mounts_file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string dev, dir, type, opts;
    if (!(ls >> dev >> dir >> type >> opts)) continue;
    if (type == "cgroup2") {
      if (r.unified.empty()) r.unified = dir;
    } else if (type == "cgroup") {
      std::string o;
      std::istringstream os(opts);
      while (std::getline(os, o, ',')) {
        if (o == "cpuset" && r.cpuset_v1.empty()) r.cpuset_v1 = dir;
        if (o == "memory" && r.memory_v1.empty()) r.memory_v1 = dir;
      }
    }
  }
  return r;
}

const char* version_name(CgroupVersion v) {
  switch (v) {
    case CgroupVersion::V1:
      return "v1";
    case CgroupVersion::V2:
      return "v2";
    default:
      return "none";
  }
}

CgroupVersion usable_version(const CgroupRoots& r) {
  if (is_directory(r.cpuset_v1) && is_directory(r.memory_v1)) return CgroupVersion::V1;
  if (is_directory(r.unified)) {
    auto ctl = read_file_trimmed(r.unified + "/cgroup.controllers");
    if (ctl) {
      std::istringstream ss(*ctl);
      std::string c;
      bool cpuset = false, memory = false;
      while (ss >> c) {
        cpuset |= c == "cpuset";
        memory |= c == "memory";
      }
      if (cpuset && memory) return CgroupVersion::V2;
    }
  }
  return CgroupVersion::None;
}

CgroupRef parse_cgroup_ref(const std::string& text) {
  CgroupRef ref;
  auto colon = text.find(':');
  if (colon == std::string::npos) {
    ref.cpuset = ref.memory = true;
    ref.name = text;
  } else {
    std::istringstream cs(text.substr(0, colon));
    std::string c;
    while (std::getline(cs, c, ',')) {
      ref.cpuset |= c == "cpuset" || c == "*";
      ref.memory |= c == "memory" || c == "*";
    }
    ref.name = text.substr(colon + 1);
  }
  if (ref.name.empty() || ref.name[0] == '/' || ref.name.find("..") != std::string::npos)
    throw CgroupError(
        fmt::format("cgroup \"{}\": expected [controllers:]name with a relative group name, e.g. "
                    "cpuset,memory:student0",
                    text));
  return ref;
}

CgroupDirs group_dirs(const CgroupRoots& r, CgroupVersion v, const std::string& name) {
  CgroupDirs d;
  if (v == CgroupVersion::V1) {
    if (!r.cpuset_v1.empty()) d.cpuset = r.cpuset_v1 + "/" + name;
    if (!r.memory_v1.empty()) d.memory = r.memory_v1 + "/" + name;
  } else if (v == CgroupVersion::V2 && !r.unified.empty()) {
    d.cpuset = d.memory = r.unified + "/" + name;
  }
  return d;
}

std::string oom_counter_file(const std::string& memory_dir, CgroupVersion v) {
  if (memory_dir.empty()) return "";
  return memory_dir + (v == CgroupVersion::V2 ? "/memory.events" : "/memory.oom_control");
}

std::optional<uint64_t> read_oom_kills(const std::string& counter_file) {
  if (counter_file.empty()) return std::nullopt;
  std::ifstream in(counter_file);
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value)
    if (key == "oom_kill") return value;
  return std::nullopt;
}

static std::optional<int64_t> memory_limit(const std::string& dir, CgroupVersion v) {
  if (dir.empty()) return std::nullopt;
  auto text = read_file_trimmed(dir + (v == CgroupVersion::V2 ? "/memory.max" : "/memory.limit_in_bytes"));
  if (!text || *text == "max") return std::nullopt;
  try {
    long long n = std::stoll(*text);
    if (n <= 0 || n >= (1LL << 62)) return std::nullopt;  // v1 shows "unlimited" as ~2^63
    return n;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

GroupInfo read_group(const CgroupRoots& r, CgroupVersion v, const std::string& name) {
  GroupInfo g;
  g.name = name;
  CgroupDirs d = group_dirs(r, v, name);
  bool cs = is_directory(d.cpuset), mem = is_directory(d.memory);
  g.exists = cs || mem;
  if (cs) {
    g.cpus = parse_cpu_list(read_file_trimmed(d.cpuset + "/cpuset.cpus").value_or(""));
    g.mems = read_file_trimmed(d.cpuset + "/cpuset.mems").value_or("");
  }
  if (mem) {
    g.memory_limit_bytes = memory_limit(d.memory, v);
    g.oom_kills = read_oom_kills(oom_counter_file(d.memory, v));
  }
  std::string procs_dir = cs ? d.cpuset : d.memory;
  if (g.exists) {
    if (auto procs = read_file_trimmed(procs_dir + "/cgroup.procs")) {
      std::istringstream ss(*procs);
      std::string pid;
      g.tasks = 0;
      while (ss >> pid) ++g.tasks;
    }
  }
  return g;
}

}  // namespace milabench
