// Shared by the workload tests: temporary folders and running a registered
// workload on the CPU through a real Session and RateMeter.
#pragma once
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/rate_meter.hpp"
#include "run/run_app.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

// CUDA tests (suites named *Cuda, which scripts/gpu-check.sh runs on a GPU):
// each runs on the CPU everything up to the device (the real `milarun run`
// parser with the harness's flags, the dry run `milarun jobs` makes,
// configuration, model construction), so a stale flag or a changed
// signature fails in CI; CUDA_PART() then skips the rest where no GPU is
// visible.
#define CUDA_PART() \
  if (!torch::cuda::is_available()) GTEST_SKIP() << "skipped: no CUDA (the CPU part passed)"

namespace milabench::test {

// A fresh folder under the system temp dir, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    path = std::filesystem::temp_directory_path() /
           ("milabench_wl_" + tag + "_" + std::to_string(::getpid()) + "_" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
};

struct RunOutcome {
  int64_t count;         // examples counted by the meter
  nlohmann::json extra;  // what the workload recorded (model, dataset, metrics)
};

// torch's intra-op threads set to 1 for a scope (the references ran with one).
struct OneThread {
  int saved = torch::get_num_threads();
  OneThread() { torch::set_num_threads(1); }
  ~OneThread() { torch::set_num_threads(saved); }
};

// Runs workload `name` (short name or experiment) with `args` on the CPU, one
// intra-op thread (tests share a small CI machine), until `max_count`. A slice
// closes on (nearly) every step so the loss is read and checked each time.
// Exceptions from the workload propagate.
// What a run wrote into its result (as the harness writes it), with the
// ranks' "timings" entries when it set them.
inline nlohmann::json outputs_json(const Session& s) {
  nlohmann::json j = nlohmann::json::object();
  write_workload_outputs(j, s.outputs());
  if (s.outputs().rank_timings) j["timings"] = *s.outputs().rank_timings;
  return j;
}

inline RunOutcome run_workload(const std::string& name, std::vector<std::string> args, int64_t max_count,
                               const std::string& dataroot = "") {
  torch::manual_seed(0);
  OneThread one_thread;
  const WorkloadInfo* info = find_workload(name);
  if (!info) throw std::runtime_error("unknown workload " + name);
  auto w = info->make();
  RunSettings settings;  // the harness's flags (--workers, --seed, ...) and the workload's, as `milarun run`
  auto app = configure_run_app(*info, *w, settings);
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  app->parse(args);
  MeterOptions opts;
  opts.sample_duration = 1e-4;
  opts.max_count = max_count;
  opts.window_rule = false;  // the original's stop: these tests check the workloads, not the window rule
  RateMeter meter(
      opts, [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); },
      {});
  meter.start();
  Session s(meter, torch::Device(torch::kCPU), dataroot, settings.torch.workers, settings.torch.seed);
  w->run(s);
  return {meter.count(), outputs_json(s)};
}

// `base` followed by `more` (a tiny config's flags, then a test's own).
inline std::vector<std::string> with_flags(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

inline void expect_finite_loss(const RunOutcome& r) {
  ASSERT_TRUE(r.extra.contains("metrics") && r.extra["metrics"].contains("loss")) << r.extra.dump();
  EXPECT_TRUE(std::isfinite(r.extra["metrics"]["loss"].get<double>()));
}

}  // namespace milabench::test
