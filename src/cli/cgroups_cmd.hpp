// `milarun cgroups setup|status|teardown`: the student groups (see
// launch/student_groups.hpp) from the command line; scripts/cgroup_setup.sh
// calls it.
#pragma once
#include <iosfwd>
#include <string>

namespace CLI {
class App;
}

namespace milabench {

struct CgroupsCmdOptions {
  std::string action;    // setup | status | teardown
  int devices = 0;       // 0 = one per visible GPU, at least 1
  double memory_mb = 0;  // per group; 0 = 90 % of RAM (or of the hierarchy's limit) / devices
  std::string parent;    // groups under this relative folder ("" = hierarchy root)
  std::string marker;    // "" = default_marker_path()
};

// Adds the subcommand to `app`; its flags fill `o`.
CLI::App* add_cgroups_command(CLI::App& app, CgroupsCmdOptions& o);

// 0 = done, 1 = a step failed (message on err), 2 = bad options.
int run_cgroups_command(const CgroupsCmdOptions& o, std::ostream& out, std::ostream& err);

}  // namespace milabench
