#include "launch/process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>  // environ

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "launch/cgroups.hpp"
#include "launch/interrupt.hpp"
#include "launch/spawn.hpp"
#include "sys/dirs.hpp"

namespace milabench {

namespace {

// Everything a child needs, prepared before fork so the child only calls
// async-signal-safe functions.
struct Prepared {
  std::vector<std::string> argv_s, env_s, fallback_env_s;
  std::vector<char*> argv, envp, fallback_envp;
  std::vector<std::string> join;  // cgroup.procs files
  std::string log;
};

std::vector<char*> pointers(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& e : v) out.push_back(e.data());
  out.push_back(nullptr);
  return out;
}

// Writes this process's pid into `file`; async-signal-safe.
bool join_cgroup(const char* file) {
  char buf[24];
  int n = 0;
  char rev[24];
  for (long pid = getpid(); pid > 0; pid /= 10) rev[n++] = static_cast<char>('0' + pid % 10);
  for (int i = 0; i < n; ++i) buf[i] = rev[n - 1 - i];
  int fd = ::open(file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, buf, n) == n;
  return ::close(fd) == 0 && ok;
}

void say(const char* a, const char* b = "", const char* c = "") {
  for (const char* s : {a, b, c}) (void)!write(2, s, std::strlen(s));
}

Prepared prepare(const ProcessSpec& s, const std::string& log) {
  Prepared p;
  p.argv_s = s.argv;
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : s.env) env[k] = v;
  if (!s.cpus.empty()) {
    for (const char* k : {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"})
      if (!s.env.count(k)) env[k] = std::to_string(s.cpus.size());
  }
  const IsolationPlan& iso = s.isolation;
  if (!iso.record.empty()) env["MILARUN_ISOLATION"] = iso.record;
  for (const auto& [k, v] : env) p.env_s.push_back(k + "=" + v);
  if (!iso.fallback_record.empty()) env["MILARUN_ISOLATION"] = iso.fallback_record;
  for (const auto& [k, v] : env) p.fallback_env_s.push_back(k + "=" + v);
  p.argv = pointers(p.argv_s);
  p.envp = pointers(p.env_s);
  p.fallback_envp = pointers(p.fallback_env_s);
  p.join = iso.join_files;
  p.log = log;
  return p;
}

// The child's side before exec (spawn.hpp: async-signal-safe calls only).
void child_setup(Prepared& p, const std::vector<int>& cpus, bool set_affinity, pid_t parent) {
  setpgid(0, 0);
  // Dies with the orchestrator; the check closes the race with a parent that died before prctl.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(125);
  int fd = ::open(p.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    if (fd > 2) close(fd);
  }
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) {
    dup2(devnull, 0);
    if (devnull > 0) close(devnull);
  }
  char** envp = p.envp.data();
  for (const auto& f : p.join) {
    if (join_cgroup(f.c_str())) continue;
    say("milarun: warning: could not join cgroup (", f.c_str(), "); using CPU affinity instead\n");
    envp = p.fallback_envp.data();
    set_affinity = true;
    break;
  }
  if (set_affinity && !cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus) CPU_SET(c, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      const char msg[] = "milarun: sched_setaffinity failed\n";
      (void)!write(2, msg, sizeof msg - 1);
    }
  }
  environ = envp;
}

}  // namespace

std::string log_path_for(const std::string& log_dir, const ProcessSpec& s) {
  return log_dir + "/" + s.name + ".J" + s.job_id + ".log";
}

std::vector<ProcessResult> run_wave(const std::vector<ProcessSpec>& specs, const std::string& log_dir,
                                    double kill_grace_s, double group_grace_s, Clock& clock) {
  auto since = [&clock](double t) { return clock.now() - t; };
  make_dirs(log_dir);
  std::vector<ProcessResult> res(specs.size());
  std::vector<pid_t> pids(specs.size(), -1);
  std::vector<double> start(specs.size());          // clock.now() at fork
  std::vector<double> term_at(specs.size(), -1.0);  // seconds since start when SIGTERM was sent
  std::vector<bool> killed(specs.size(), false);
  std::vector<double> group_stop_at(specs.size(), -1.0);  // seconds since start; -1 = no group member failed
  std::vector<int> failed_peer(specs.size(), -1);
  std::vector<std::optional<uint64_t>> oom_before(specs.size());
  std::size_t running = 0;
  const pid_t self = getpid();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (interrupt_signal() != 0) {  // nothing new starts once interrupted
      res[i].interrupted = true;
      continue;
    }
    res[i].log_path = log_path_for(log_dir, specs[i]);
    Prepared p = prepare(specs[i], res[i].log_path);
    start[i] = clock.now();
    oom_before[i] = read_oom_kills(specs[i].isolation.oom_counter);
    const ProcessSpec& s = specs[i];
    const pid_t pid = spawn(p.argv.data(), [&] { child_setup(p, s.cpus, s.isolation.set_affinity, self); });
    if (pid < 0) continue;
    setpgid(pid, pid);  // also done in the child; avoids a race with killpg
    pids[i] = pid;
    res[i].started = true;
    ++running;
  }
  while (running > 0) {
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (pids[i] < 0) continue;
      int status = 0;
      pid_t r = waitpid(pids[i], &status, WNOHANG);
      if (r == pids[i]) {
        res[i].wall_s = since(start[i]);
        if (WIFEXITED(status))
          res[i].exit_code = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
          res[i].signal = WTERMSIG(status);
        if (term_at[i] >= 0) ::kill(-pids[i], SIGKILL);  // leftover group members
        auto oom_after = read_oom_kills(specs[i].isolation.oom_counter);
        res[i].oom_killed = !res[i].ok() && oom_before[i] && oom_after && *oom_after > *oom_before[i];
        pids[i] = -1;
        --running;
        if (!res[i].ok() && !specs[i].group.empty())
          for (std::size_t j = 0; j < specs.size(); ++j)
            if (pids[j] >= 0 && specs[j].group == specs[i].group && group_stop_at[j] < 0) {
              group_stop_at[j] = since(start[j]) + group_grace_s;
              failed_peer[j] = static_cast<int>(i);
            }
        continue;
      }
      double t = since(start[i]);
      if (term_at[i] < 0 && interrupt_signal() != 0) {
        res[i].interrupted = true;
        term_at[i] = t;
        ::kill(-pids[i], SIGTERM);
      } else if (term_at[i] < 0 && t > specs[i].timeout_s) {
        res[i].timed_out = true;
        term_at[i] = t;
        ::kill(-pids[i], SIGTERM);
      } else if (term_at[i] < 0 && group_stop_at[i] >= 0 && t > group_stop_at[i]) {
        res[i].stopped_for = failed_peer[i];
        term_at[i] = t;
        ::kill(-pids[i], SIGTERM);
      } else if (term_at[i] >= 0 && !killed[i] && t > term_at[i] + kill_grace_s) {
        killed[i] = true;
        ::kill(-pids[i], SIGKILL);
      }
    }
    if (running > 0) clock.sleep_for(0.02);
  }
  return res;
}

int run_shell(const std::string& command) {
  std::string sh = "/bin/sh", dash_c = "-c", text = command;
  char* argv[] = {sh.data(), dash_c.data(), text.data(), nullptr};
  const pid_t pid = spawn(argv, {});
  return pid < 0 ? -1 : wait_exit_status(pid);
}

std::string find_on_path(const std::string& program) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0 ? program : "";
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t pos = 0;
  while (pos <= p.size()) {
    std::size_t end = p.find(':', pos);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(pos, end - pos);
    if (dir.empty()) dir = ".";
    std::string full = dir + "/" + program;
    struct stat st {};
    if (::stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(full.c_str(), X_OK) == 0) return full;
    pos = end + 1;
  }
  return "";
}

}  // namespace milabench
