#include "monitor/monitor.hpp"

#include <algorithm>
#include <optional>

#include "devices/gpu_ids.hpp"
#include "devices/nvml.hpp"
#include "monitor/cpu_share.hpp"
#include "monitor/gpu_track.hpp"
#include "monitor/host_sensors.hpp"
#include "monitor/memory_pressure.hpp"
#include "monitor/stat.hpp"
#include "monitor/time_share.hpp"
#include "sys/cpu_topology.hpp"
#include "sys/cpus.hpp"

namespace milabench {

namespace {

using json = nlohmann::json;

// Per second, what a cumulative counter sampled as (time, value) grew by
// between t0 and t1, the counter read linearly between samples; the span is
// cut to the samples'. nullopt when less than a sample interval overlaps.
std::optional<double> counter_rate(const std::vector<std::pair<double, double>>& samples, double t0, double t1) {
  if (samples.size() < 2) return std::nullopt;
  t0 = std::max(t0, samples.front().first);
  t1 = std::min(t1, samples.back().first);
  if (!(t1 > t0)) return std::nullopt;
  auto at = [&](double t) {
    auto hi = std::lower_bound(samples.begin(), samples.end(), t,
                               [](const std::pair<double, double>& s, double x) { return s.first < x; });
    if (hi == samples.begin()) return hi->second;
    auto lo = hi - 1;
    return lo->second + (hi->second - lo->second) * (t - lo->first) / (hi->first - lo->first);
  };
  return (at(t1) - at(t0)) / (t1 - t0);
}

// A time share's JSON (TimeShare::to_json) after the keys that say what it
// is of (docs/result-format.md).
json share_json(json what, const TimeShare& share, const std::optional<std::pair<double, double>>& window) {
  what.update(share.to_json(window));
  return what;
}

// "memory_stall" (docs/result-format.md): the scope's stall shares and the
// run's own major faults per second in the window, which tie those stalls to
// the run (a neighbour's stalls also count at the system scope).
json memory_stall_json(const std::string& scope, const TimeShare& stalls,
                       const std::vector<std::pair<double, double>>& major_faults,
                       const std::optional<std::pair<double, double>>& window) {
  std::optional<double> faults;
  if (window) faults = counter_rate(major_faults, window->first, window->second);
  return share_json({{"scope", scope}, {"window_major_faults_per_s", faults ? json(*faults) : json(nullptr)}}, stalls,
                    window);
}

// The other hyperthreads of `cpus`' cores outside `cpus`, when their busy
// time can be read; nullopt with `why` otherwise.
std::optional<std::vector<int>> readable_siblings(const MonitorOptions& o, const std::vector<int>& cpus,
                                                  std::string& why) {
  auto siblings = read_thread_siblings(o.cpu_root, cpus, why);
  if (!siblings) return std::nullopt;
  std::vector<int> outside = siblings_outside(cpus, *siblings);
  auto busy = read_per_cpu_busy_s(o.proc_stat, why);
  if (!busy) return std::nullopt;
  if (!cpus_busy_s(*busy, outside, why)) {  // a container's /proc/stat (lxcfs) can lack CPUs outside its set
    why = o.proc_stat + " has " + why;
    return std::nullopt;
  }
  return outside;
}

}  // namespace

struct Monitor::State {
  Nvml* nvml = nullptr;
  std::vector<GpuTrack> gpus;
  std::vector<RaplDomain> rapl;
  std::vector<uint64_t> rapl_prev;
  std::vector<double> rapl_j;
  Stat cpu_power_w;
  std::optional<ProcessReading> proc_prev;
  Stat rss_mb, cpu_percent;
  double rss_peak_mb = 0.0;
  std::vector<int> cpus;                   // the run's CPUs
  std::optional<TimeShare> foreign;        // others' share of the CPUs; nullopt when /proc/stat cannot be read
  std::vector<int> sibling_cpus;           // hyperthreads of the run's cores outside its CPUs
  std::optional<TimeShare> sibling;        // their busy share; nullopt without /proc/stat or the topology
  std::optional<TimeShare> cpu_throttle;   // the CPUs' time throttled for heat; nullopt without the counters
  std::optional<PressureSource> pressure;  // memory stalls; nullopt without PSI
  TimeShare memory_stall;
  std::vector<std::pair<double, double>> major_faults;  // (clock, the run's major faults)
  double start = 0.0, prev_t = 0.0;                     // clock seconds
  int samples = 0;
  std::vector<std::string> notes;
};

Monitor::Monitor(MonitorOptions o) : opt_(std::move(o)), st_(std::make_unique<State>()) {
  if (!opt_.clock) opt_.clock = &steady_clock();
}

Monitor::~Monitor() {
  if (running_) stop();
}

void Monitor::start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (running_) return;
  State& s = *st_;
  s.nvml = opt_.nvml ? opt_.nvml : &Nvml::instance();
  std::vector<std::string> ids = opt_.gpu_ids_from_env ? detect_gpu_ids() : opt_.gpu_ids;
  if (!s.nvml->available() && !ids.empty()) s.notes.push_back("gpu: " + s.nvml->why_unavailable());
  for (const auto& id : ids) {
    GpuTrack g;
    g.id = id;
    g.index = s.nvml->available() ? s.nvml->index_of(id) : -1;
    if (auto info = s.nvml->info(g.index)) g.name = info->name;
    if (g.index >= 0) s.gpus.push_back(g);
  }
  std::string why;
  s.rapl = find_rapl_packages(opt_.powercap_root, why);
  if (s.rapl.empty()) s.notes.push_back("cpu energy: " + why);
  s.rapl_j.assign(s.rapl.size(), 0.0);
  s.cpus = opt_.cpus.empty() ? allowed_cpus() : opt_.cpus;
  if (s.cpus.empty()) {
    s.notes.push_back("foreign cpu: this process's CPU affinity cannot be read");
  } else if (read_cpus_busy_s(opt_.proc_stat, s.cpus, why)) {
    s.foreign.emplace(static_cast<double>(s.cpus.size()));
  } else {
    s.notes.push_back("foreign cpu: " + why);
  }
  if (s.foreign) {
    if (auto outside = readable_siblings(opt_, s.cpus, why)) {
      s.sibling_cpus = *outside;
      s.sibling.emplace(std::max<double>(1.0, static_cast<double>(outside->size())));
    } else {
      s.notes.push_back("sibling cpu: " + why);
    }
  }
  if (!s.cpus.empty()) {
    if (read_cpus_throttled_s(opt_.cpu_root, s.cpus, why))
      s.cpu_throttle.emplace(static_cast<double>(s.cpus.size()));
    else
      s.notes.push_back("cpu throttle: " + why);
  }
  s.pressure = find_memory_pressure(opt_.proc_dir, opt_.cgroup_root, opt_.memory_pressure, why);
  if (!s.pressure) s.notes.push_back("memory stall: " + why);
  s.start = opt_.clock->now();
  take_sample();
  running_ = true;
  stop_requested_ = false;
  thread_ = std::thread([this] { loop(); });
}

void Monitor::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  double next = st_->start + opt_.interval_s;  // samples fall at start + k·interval
  for (;;) {
    {
      std::lock_guard<std::mutex> g(stopped_mu_);
      stopped_.waiting(std::max(next, opt_.clock->now()));
    }
    const bool stop = opt_.clock->wait_until(lock, cv_, next, [this] { return stop_requested_; });
    const double now = opt_.clock->now();
    {
      std::lock_guard<std::mutex> g(stopped_mu_);
      stopped_.woke(now);
    }
    if (stop) break;
    take_sample();
    do next += opt_.interval_s;  // after a stop, the samples it missed are skipped, not taken in a burst
    while (next <= now);
  }
}

double Monitor::stopped_between(double t0, double t1) {
  std::lock_guard<std::mutex> g(stopped_mu_);
  return stopped_.seconds_between(t0, t1, opt_.clock->now());
}

// Called with mu_ held.
void Monitor::take_sample() {
  State& s = *st_;
  double now = opt_.clock->now();
  double dt = s.samples == 0 ? 0.0 : now - s.prev_t;
  std::string why;
  std::optional<CpuBusy> busy;
  if (s.foreign) busy = read_per_cpu_busy_s(opt_.proc_stat, why);
  if (auto p = read_process(opt_.proc_dir)) {
    s.rss_mb.add(p->rss_mb);
    s.rss_peak_mb = std::max({s.rss_peak_mb, p->rss_peak_mb, p->rss_mb});
    if (s.proc_prev && dt > 0) s.cpu_percent.add(100.0 * (p->cpu_time_s - s.proc_prev->cpu_time_s) / dt, dt);
    s.proc_prev = p;
    s.major_faults.emplace_back(now, p->major_faults);
    if (busy)
      if (auto b = cpus_busy_s(*busy, s.cpus, why)) s.foreign->add_count(now, *b - p->cpu_time_s);
  }
  if (busy && s.sibling)
    if (auto b = cpus_busy_s(*busy, s.sibling_cpus, why)) s.sibling->add_count(now, *b);
  if (s.cpu_throttle)
    if (auto t = read_cpus_throttled_s(opt_.cpu_root, s.cpus, why)) s.cpu_throttle->add_count(now, *t);
  if (s.pressure)
    if (auto stalled = read_memory_stall_s(s.pressure->path)) s.memory_stall.add_count(now, *stalled);
  double step_j = 0.0;
  bool rapl_ok = !s.rapl.empty();
  for (std::size_t i = 0; i < s.rapl.size(); ++i) {
    auto e = read_energy_uj(s.rapl[i]);
    if (!e) {
      rapl_ok = false;
      continue;
    }
    if (s.rapl_prev.size() == s.rapl.size()) {
      double j = energy_delta_j(s.rapl_prev[i], *e, s.rapl[i].max_range_uj);
      s.rapl_j[i] += j;
      step_j += j;
    }
    s.rapl_prev.resize(s.rapl.size());
    s.rapl_prev[i] = *e;
  }
  if (rapl_ok && dt > 0) s.cpu_power_w.add(step_j / dt, dt);
  for (auto& g : s.gpus) {
    g.add(s.nvml->sample(g.index), now, dt);
  }
  s.prev_t = now;
  ++s.samples;
}

int Monitor::samples() const {
  std::lock_guard<std::mutex> lock(mu_);
  return st_->samples;
}

json Monitor::stop(std::optional<std::pair<double, double>> window) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!running_) return json::object();
    stop_requested_ = true;
  }
  cv_.notify_all();
  thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  running_ = false;
  take_sample();
  const State& s = *st_;
  json stopped;
  {
    std::lock_guard<std::mutex> g(stopped_mu_);
    stopped = stopped_.to_json(window);
  }

  json gpu_monitor = json::object();
  std::optional<double> gpu_energy;
  for (const auto& g : s.gpus) {
    std::optional<double> e = g.energy_j();
    if (e) gpu_energy = gpu_energy.value_or(0.0) + *e;
    gpu_monitor[g.id] = g.to_json(window);
  }
  std::optional<double> cpu_energy;
  json cpu_domains = nullptr;
  if (!s.rapl.empty()) {
    cpu_domains = json::object();
    cpu_energy = 0.0;
    for (std::size_t i = 0; i < s.rapl.size(); ++i) {
      cpu_domains[s.rapl[i].name] = s.rapl_j[i];
      *cpu_energy += s.rapl_j[i];
    }
  }
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  std::optional<double> total;
  if (gpu_energy || cpu_energy) total = gpu_energy.value_or(0.0) + cpu_energy.value_or(0.0);
  json monitor = {
      {"interval_s", opt_.interval_s},
      {"samples", s.samples},
      {"duration_s", s.prev_t - s.start},
      {"process",
       {{"rss_mb", s.rss_mb.to_json()}, {"rss_peak_mb", s.rss_peak_mb}, {"cpu_percent", s.cpu_percent.to_json()}}},
      {"cpu_energy", cpu_domains},
      {"cpu_power_w", s.cpu_power_w.to_json()},
      {"cpu_energy_j", opt(cpu_energy)},
      {"gpu_energy_j", opt(gpu_energy)},
      {"energy_j", opt(total)},
      {"power_measured", total.has_value()},
      {"foreign_cpu",
       s.foreign ? share_json({{"cpus", s.cpus.size()}, {"usable_cpus", usable_cpu_count()}}, *s.foreign, window)
                 : json(nullptr)},
      {"sibling_cpu",
       s.sibling ? share_json({{"cpus", cpu_list_string(s.sibling_cpus)}}, *s.sibling, window) : json(nullptr)},
      {"cpu_throttle", s.cpu_throttle ? share_json(json::object(), *s.cpu_throttle, window) : json(nullptr)},
      {"memory_stall",
       s.pressure ? memory_stall_json(s.pressure->scope, s.memory_stall, s.major_faults, window) : json(nullptr)},
      {"stopped", stopped},
      {"notes", s.notes}};
  return {{"gpu_monitor", gpu_monitor}, {"monitor", monitor}};
}

}  // namespace milabench
