// The student groups of the spec's "What does the cgroup script do?": one
// group per device (student0..studentN-1), each with an equal, mutually
// exclusive CPU set, all memory nodes and an equal RAM limit. Set-up records
// what it creates in a marker file so that teardown removes only that;
// groups that already exist (e.g. made by the original's cgroup_setup.sh)
// are used as they are and never removed.
#pragma once
#include <string>
#include <vector>

#include "launch/cgroups.hpp"

namespace milabench {

struct StudentSetup {
  std::vector<std::vector<int>> cpu_sets;  // one per device (its size = device count); mutually exclusive
  int64_t memory_bytes_each = 0;           // memory limit of each group, bytes; must be > 0
  std::string parent;                      // groups go under this relative folder ("" = hierarchy root)
  std::string prefix = "student";          // group i is <parent>/<prefix><i>
};

struct StudentGroupStatus {
  GroupInfo info;
  bool made_by_milarun = false;  // listed in the marker (teardown will remove it)
};

// /run/milabench/cgroups.json: tmpfs, so it is forgotten at reboot, as cgroups are.
std::string default_marker_path();

class StudentGroups {
 public:
  StudentGroups(CgroupRoots roots, std::string marker_path = default_marker_path());

  // Creates the missing groups and returns one line per group saying what
  // happened. Throws CgroupError (naming the file) when no hierarchy is usable
  // or a write fails; what was created before the failure stays in the
  // marker, so teardown still removes it.
  std::vector<std::string> setup(const StudentSetup& s);

  // Groups named <parent>/<prefix>* in the usable hierarchy, by index.
  std::vector<StudentGroupStatus> status(const std::string& parent = "",
                                         const std::string& prefix = "student") const;

  // Removes, deepest first, the folders the marker lists (and turns off the
  // v2 controllers setup turned on). Returns one line per action; a group
  // still holding processes is reported and kept in the marker. The marker
  // is deleted once everything in it is gone.
  std::vector<std::string> teardown();

  CgroupVersion version() const { return version_; }
  const CgroupRoots& roots() const { return roots_; }

 private:
  CgroupRoots roots_;
  std::string marker_;
  CgroupVersion version_;
};

}  // namespace milabench
