// The run harness (src/run): the argument parser of a run, init_torch, and
// the run boundary's classification of failures.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sstream>

#include "data/data_error.hpp"
#include "run/run_app.hpp"
#include "run/run_errors.hpp"
#include "run/torch_init.hpp"
#include "training/nonfinite_loss.hpp"
#include "workloads/workload.hpp"

using namespace milabench;

namespace {

RunFailure classify(const std::function<void()>& thrower) {
  try {
    thrower();
  } catch (...) {
    return classify_current_exception();
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

}  // namespace

TEST(RunApp, RegistersTheHarnessFlagsBesideTheWorkloads) {
  const WorkloadInfo* info = find_workload("polynome");
  ASSERT_NE(info, nullptr);
  auto w = info->make();
  RunSettings s;
  auto app = configure_run_app(*info, *w, s);
  std::ostringstream out, err;
  EXPECT_EQ(parse_run_args(*app, *info, s,
                           {"--workers", "3", "--seed", "7", "--max-count", "1_000", "--min-duration", "2.5",
                            "--no-cuda", "--poly-degree", "3"},
                           out, err),
            -1)
      << err.str();
  EXPECT_EQ(s.torch.workers, 3);
  EXPECT_EQ(s.torch.seed, 7);
  EXPECT_TRUE(s.torch.no_cuda);
  EXPECT_EQ(s.meter.max_count, 1000);
  EXPECT_DOUBLE_EQ(s.meter.min_duration, 2.5);
}

TEST(RunApp, DefaultsAreTheOriginalsInitTorch) {
  const WorkloadInfo* info = find_workload("polynome");
  auto w = info->make();
  RunSettings s;
  auto app = configure_run_app(*info, *w, s);
  std::ostringstream out, err;
  ASSERT_EQ(parse_run_args(*app, *info, s, {}, out, err), -1);
  EXPECT_EQ(s.torch.seed, 1234);
  EXPECT_EQ(s.torch.workers, 0);  // the original's None
  EXPECT_EQ(s.meter.max_count, info->default_max_count);
  EXPECT_EQ(s.meter.min_duration, 0);
}

TEST(RunApp, EveryWorkloadAcceptsTheCommonArguments) {
  for (const auto& info : workload_registry()) {
    auto w = info.make();
    RunSettings s;
    auto app = configure_run_app(info, *w, s);  // a duplicate flag would throw here
    std::ostringstream out, err;
    EXPECT_EQ(parse_run_args(*app, info, s, {"--seed", "1", "--workers", "2", "--cuda", "--max-count", "5"}, out, err),
              -1)
        << info.name << ": " << err.str();
  }
}

TEST(RunApp, BadArgumentsAreOneLineAndExit2) {
  const WorkloadInfo* info = find_workload("polynome");
  for (std::vector<std::string> args : {std::vector<std::string>{"--no-such-flag"},
                                        {"--min-duration", "-1"},
                                        {"--workers", "-2"},
                                        {"--sample-duration", "0"},
                                        {"--cuda", "--no-cuda"}}) {
    auto w = info->make();
    RunSettings s;
    auto app = configure_run_app(*info, *w, s);
    std::ostringstream out, err;
    EXPECT_EQ(parse_run_args(*app, *info, s, args, out, err), 2) << args[0];
    const std::string e = err.str();
    EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
  }
}

TEST(TorchInit, ThreadsAreWorkersOrOne) {
  const int saved = torch::get_num_threads();
  TorchArgs a;
  a.no_cuda = true;
  init_torch(a);
  EXPECT_EQ(torch::get_num_threads(), 1);
  a.workers = 2;
  TorchSettings s = init_torch(a);
  EXPECT_EQ(torch::get_num_threads(), 2);
  EXPECT_FALSE(s.cuda);
  EXPECT_FALSE(s.sync);
  // The seed fixes torch's generator.
  a.seed = 99;
  init_torch(a);
  auto x = torch::rand({3});
  init_torch(a);
  EXPECT_TRUE(torch::equal(x, torch::rand({3})));
  torch::set_num_threads(saved);
}

TEST(RunErrors, KindsComeFromTheExceptionType) {
  EXPECT_EQ(classify([] { throw NonFiniteLoss("non-finite loss (nan) after 64 examples"); }).kind,
            FailureKind::NonFiniteLoss);
  EXPECT_EQ(classify([] { throw DataError("mnist: truncated"); }).kind, FailureKind::BadInput);
  EXPECT_EQ(classify([] { throw std::bad_alloc(); }).kind, FailureKind::Oom);
  // A message that merely mentions memory is not an OOM.
  EXPECT_EQ(classify([] { throw std::runtime_error("out of memory, says the text"); }).kind, FailureKind::Exception);
  RunFailure f = classify([] { throw std::runtime_error("first line\nsecond line"); });
  EXPECT_EQ(f.message, "first line");
  EXPECT_NE(f.detail.find("second line"), std::string::npos);
}

TEST(RunErrors, LibtorchErrorsAreOneLineWithoutBacktrace) {
  RunFailure f = classify([] { torch::ones({2, 3}).mm(torch::ones({2, 3})); });
  EXPECT_EQ(f.kind, FailureKind::Exception);
  EXPECT_EQ(f.message.find('\n'), std::string::npos) << f.message;
  EXPECT_FALSE(f.message.empty());
}

TEST(RunErrors, AFailedHostAllocationIsATypedOom) {
  install_typed_cpu_oom();
  install_typed_cpu_oom();                                                          // idempotent
  EXPECT_EQ(torch::ones({4}).sum().item<float>(), 4.0f);                            // allocations still work
  RunFailure f = classify([] { torch::empty({int64_t(1) << 50}, torch::kByte); });  // 1 PiB
  EXPECT_EQ(f.kind, FailureKind::Oom) << f.message;
  EXPECT_EQ(f.message.find('\n'), std::string::npos) << f.message;
  EXPECT_EQ(f.message.rfind("out of memory", 0), 0u) << f.message;
}
