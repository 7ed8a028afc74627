// A fake milarun-torch for `jobs` tests: appends its arguments to DIR/calls
// and writes a result like the real one (name, success, "arguments") into its
// -o, or a bad_input failure when the run's arguments hold --fail.
#pragma once
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "suite/jobs.hpp"
#include "test_files.hpp"

namespace milabench::test {

inline std::string fake_worker(const std::string& dir) {
  const std::string fake = dir + "/fake.sh";
  std::ofstream(fake, std::ios::binary)
      << "#!/bin/sh\necho \"$@\" >> \"" + dir +
             "/calls\"\nwhile [ $# -gt 0 ]; do case $1 in -o) o=$2;; --experiment-name) n=$2;; --job-id) j=$2;; "
             "--) shift; break;; esac; shift; done\n"
             // as milarun run: -o ending in '/' names a folder, made if missing
             "case $o in */) mkdir \"$o\" 2>/dev/null;; esac\n"
             "args='[]'; [ $# -gt 0 ] && args=$(printf '\"%s\",' \"$@\") && args=\"[${args%,}]\"; t=$(date "
             "+%Y%m%d-%H%M%S-%6N)\n"
             "case \" $* \" in *' --fail '*) echo '{\"name\": \"'$n'\", \"success\": false, \"failure_kind\": "
             "\"bad_input\", "
             "\"arguments\": '\"$args\"'}' > \"$o/$n.J$j.FAIL.$t.json\"; exit 1;; esac\n"
             "echo '{\"name\": \"'$n'\", \"success\": true, \"arguments\": '\"$args\"'}' > \"$o/$n.J$j.$t.json\"\n";
  ::chmod(fake.c_str(), 0755);
  return fake;
}

// The options of `milarun jobs` on dir/mini.json (written from
// `profile_text`), -o dir/out, one device, runs made by the fake worker.
inline JobsOptions fake_suite(const std::string& dir, const std::string& profile_text) {
  write_text(dir + "/mini.json", profile_text);
  JobsOptions o;
  o.profile = dir + "/mini.json";
  o.dataroot = dir;
  o.outdir = dir + "/out";
  o.devices = 1;
  o.self_exe = fake_worker(dir);
  return o;
}

// How many runs the fake worker was asked for.
inline int fake_calls(const std::string& dir) {
  std::ifstream in(dir + "/calls");
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.rfind("run ", 0) == 0;
  return n;
}

}  // namespace milabench::test
