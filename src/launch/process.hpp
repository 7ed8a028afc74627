// Spawning benchmark processes in parallel waves, with timeouts.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "sys/clock.hpp"

namespace milabench {

// How a child is confined, decided before launch (launch/isolation.hpp
// fills it from ProcessSpec::cgroup; empty = plain CPU affinity).
struct IsolationPlan {
  std::vector<std::string> join_files;  // cgroup.procs files the child writes its pid into, before exec
  bool set_affinity = true;             // also pin to ProcessSpec::cpus (off when a cpuset group decides)
  std::string record;                   // MILARUN_ISOLATION (JSON) for the child when every join worked
  std::string fallback_record;          // MILARUN_ISOLATION when a join failed and affinity was used instead
  std::string oom_counter;              // file with the group's "oom_kill N" count ("" = none)
};

// One process to run. argv[0] is looked up on PATH (execvp).
struct ProcessSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to (overriding) the inherited environment
  std::vector<int> cpus;                   // CPU affinity; empty = inherit
  std::string cgroup;                      // "cpuset,memory:student0" from the profile; "" = none
  IsolationPlan isolation;                 // how cgroup/cpus are applied
  double timeout_s = 3600.0;               // wall-clock limit, seconds
  std::string name;                        // "standard.vae"
  std::string job_id;                      // "0.1"
  std::string device;                      // device id(s) it uses, for reports; "" = none
  // Processes of one wave with the same non-empty group are one job (the
  // ranks of a data-parallel run): when one fails, the others are stopped.
  std::string group;
};

struct ProcessResult {
  int exit_code = -1;        // valid when signal == 0 and started
  int signal = 0;            // terminating signal, 0 = exited normally
  bool timed_out = false;    // killed because it ran past timeout_s
  bool started = false;      // fork succeeded
  double wall_s = 0.0;       // seconds from spawn to reap
  bool oom_killed = false;   // failed while its cgroup's OOM-kill count went up
  bool interrupted = false;  // stopped because the orchestrator got SIGINT/SIGTERM/SIGHUP
  std::string log_path;      // where its stdout+stderr went
  int stopped_for = -1;      // index in the wave of the group member whose failure got it stopped; -1 = none
  bool ok() const { return started && signal == 0 && exit_code == 0 && !timed_out && !interrupted && stopped_for < 0; }
};

// "<log_dir>/<name>.J<job_id>.log".
std::string log_path_for(const std::string& log_dir, const ProcessSpec& s);

// Runs all specs at once and waits for all. Each child gets its own process
// group, its affinity, its env (plus OMP/MKL/OPENBLAS_NUM_THREADS = number of
// cpus when cpus is set and the spec does not set them) and its stdout/stderr
// in log_path_for(log_dir, spec) (log_dir is created). A child first joins
// the cgroups of spec.isolation (falling back to affinity, with a line in its
// log, when a join fails), then execs. A process past its
// timeout gets SIGTERM on its group, then SIGKILL after kill_grace_s; so does
// every child once interrupt_signal() (launch/interrupt.hpp) is set. A child
// dies with SIGKILL when the orchestrator dies (PR_SET_PDEATHSIG), so even a
// `kill -9` of `milarun jobs` leaves no run behind.
// When a process with a non-empty ProcessSpec::group fails, every other
// member of that group still running has group_grace_s to end by itself
// (so it can record its own error), then gets SIGTERM and SIGKILL as above
// and ProcessResult::stopped_for names the one that failed.
// Timeouts, graces and ProcessResult::wall_s are read on `clock`, which
// also paces the polling of the children (every 0.02 s).
// Results are in spec order. Exec failure shows as exit code 127.
std::vector<ProcessResult> run_wave(const std::vector<ProcessSpec>& specs, const std::string& log_dir,
                                    double kill_grace_s = 5.0, double group_grace_s = 10.0,
                                    Clock& clock = steady_clock());

// Runs `command` with /bin/sh -c, output inherited; returns its exit status
// (128+signal when killed, -1 when it could not start).
int run_shell(const std::string& command);

// Full path of `program` on PATH (or itself when it contains '/' and is
// executable); "" when not found.
std::string find_on_path(const std::string& program);

}  // namespace milabench
