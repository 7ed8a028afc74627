// Spawning benchmark processes in parallel waves, with timeouts.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace milabench {

// One process to run. argv[0] is looked up on PATH (execvp).
struct ProcessSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to (overriding) the inherited environment
  std::vector<int> cpus;                   // CPU affinity; empty = inherit
  std::string cgroup;                      // recorded only; cgroups are not applied yet
  double timeout_s = 3600.0;               // wall-clock limit, seconds
  std::string name;                        // "standard.vae"
  std::string job_id;                      // "0.1"
  std::string device;                      // device id(s) it uses, for reports; "" = none
};

struct ProcessResult {
  int exit_code = -1;     // valid when signal == 0 and started
  int signal = 0;         // terminating signal, 0 = exited normally
  bool timed_out = false; // killed because it ran past timeout_s
  bool started = false;   // fork succeeded
  double wall_s = 0.0;    // seconds from spawn to reap
  std::string log_path;   // where its stdout+stderr went
  bool ok() const { return started && signal == 0 && exit_code == 0 && !timed_out; }
};

// "<log_dir>/<name>.J<job_id>.log".
std::string log_path_for(const std::string& log_dir, const ProcessSpec& s);

// Runs all specs at once and waits for all. Each child gets its own process
// group, its affinity, its env (plus OMP/MKL/OPENBLAS_NUM_THREADS = number of
// cpus when cpus is set and the spec does not set them) and its stdout/stderr
// in log_path_for(log_dir, spec) (log_dir is created). A process past its
// timeout gets SIGTERM on its group, then SIGKILL after kill_grace_s.
// Results are in spec order. Exec failure shows as exit code 127.
std::vector<ProcessResult> run_wave(const std::vector<ProcessSpec>& specs, const std::string& log_dir,
                                    double kill_grace_s = 5.0);

// Runs `command` with /bin/sh -c, output inherited; returns its exit status
// (128+signal when killed, -1 when it could not start).
int run_shell(const std::string& command);

// Full path of `program` on PATH (or itself when it contains '/' and is
// executable); "" when not found.
std::string find_on_path(const std::string& program);

// mkdir -p. Returns false on failure.
bool make_dirs(const std::string& path);

}  // namespace milabench
