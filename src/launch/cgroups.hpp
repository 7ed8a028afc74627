// Native cgroup v1 (cpuset + memory hierarchies) and v2 (unified) access:
// finding the hierarchies, reading a group, and the student-group set-up that
// `milarun cgroups setup|status|teardown` performs. No cgexec/cgcreate.
//
// Group names are paths relative to a hierarchy's root ("student0",
// "milabench-test-42/student1"), as cgexec's -g takes them.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace milabench {

// A cgroup operation that failed; what() names the file and the errno text.
struct CgroupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where the hierarchies are. "" = not mounted. Tests point these at temp
// folders (fake roots) or at the test process's own groups.
struct CgroupRoots {
  std::string cpuset_v1;  // v1 cpuset hierarchy, e.g. /sys/fs/cgroup/cpuset
  std::string memory_v1;  // v1 memory hierarchy, e.g. /sys/fs/cgroup/memory
  std::string unified;    // cgroup2 mount, e.g. /sys/fs/cgroup or /sys/fs/cgroup/unified
};

// Reads a mount table in /proc/mounts format; a missing file gives all "".
CgroupRoots detect_cgroup_roots(const std::string& mounts_file = "/proc/mounts");

enum class CgroupVersion { None, V1, V2 };
const char* version_name(CgroupVersion v);  // "none", "v1", "v2"

// V1 when both v1 roots are folders; else V2 when the unified root lists both
// "cpuset" and "memory" in cgroup.controllers; else None (with v2 mounted but
// no controllers, as on hosts that keep the controllers in v1).
CgroupVersion usable_version(const CgroupRoots& r);

// A profile's cgroup field after {CUDA_VISIBLE_DEVICES} substitution:
// "cpuset,memory:student0" or "student0" (no controllers = cpuset,memory).
// Controllers other than cpuset and memory are ignored.
struct CgroupRef {
  bool cpuset = false;
  bool memory = false;
  std::string name;
};
// Throws CgroupError for an empty name or one with ".." or a leading '/'.
CgroupRef parse_cgroup_ref(const std::string& text);

// The folder of group `name` for each controller ("" when that controller
// has no hierarchy). For V2 both are the same folder.
struct CgroupDirs {
  std::string cpuset;
  std::string memory;
};
CgroupDirs group_dirs(const CgroupRoots& r, CgroupVersion v, const std::string& name);

// What a group holds right now.
struct GroupInfo {
  std::string name;
  bool exists = false;                        // a folder in some hierarchy
  std::vector<int> cpus;                      // cpuset.cpus; empty = none/unset
  std::string mems;                           // cpuset.mems, e.g. "0"
  std::optional<int64_t> memory_limit_bytes;  // nullopt = unlimited or no memory group
  int tasks = -1;                             // processes in it (-1 = unknown)
  std::optional<uint64_t> oom_kills;          // kernel's oom_kill counter, when exposed
};
GroupInfo read_group(const CgroupRoots& r, CgroupVersion v, const std::string& name);

// The file of folder `dir` that counts OOM kills (v1 memory.oom_control,
// v2 memory.events) and the value of its "oom_kill N" line.
std::string oom_counter_file(const std::string& memory_dir, CgroupVersion v);
std::optional<uint64_t> read_oom_kills(const std::string& counter_file);

// Small file helpers shared by the cgroup code. read_file_trimmed gives
// nullopt when the file cannot be read; write_file throws CgroupError naming
// the file, the value and the errno text.
std::optional<std::string> read_file_trimmed(const std::string& path);
void write_file(const std::string& path, const std::string& value);
bool is_directory(const std::string& path);

}  // namespace milabench
