// The mixed-precision module (loss scaling policies, master weights, clipping,
// autocast scope) on the CPU, and the paths that need CUDA (float16 training,
// pinned copies, NCCL, the meter's device sync), which skip without a GPU.
#include "training/mixed_precision.hpp"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <sstream>

#include "compat/torch_compat.hpp"
#include "generated_data.hpp"
#include "launch/rendezvous.hpp"
#include "measure/rate_meter.hpp"
#include "run/run_app.hpp"
#include "test_support.hpp"
#include "training/data_parallel.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace milabench {
namespace {

// ---- the scale arithmetic --------------------------------------------------

TEST(LossScale, StaticNeverMovesAndNeverSkips) {
  LossScale s(LossScalePolicy::fixed(128));
  EXPECT_TRUE(s.update(true));  // a static scale does not check (apex's LossScaler)
  for (int i = 0; i < 5000; ++i) EXPECT_TRUE(s.update(false));
  EXPECT_EQ(s.scale(), 128);
  EXPECT_EQ(s.skipped_steps(), 0);
}

TEST(LossScale, ApexDynamicStartsAt2To16HalvesWithoutFloorGrowsAfter2000CleanStepsUpTo2To24) {
  // amp's LossScaler("dynamic"), which the original's FP16_Optimizer used.
  LossScale s(LossScalePolicy::apex_dynamic());
  EXPECT_EQ(s.scale(), 65536.0);
  EXPECT_FALSE(s.update(true));
  EXPECT_EQ(s.scale(), 32768.0);
  for (int i = 0; i < 1999; ++i) EXPECT_TRUE(s.update(false));
  EXPECT_EQ(s.scale(), 32768.0);
  EXPECT_TRUE(s.update(false));  // the 2000th clean step in a row
  EXPECT_EQ(s.scale(), 65536.0);
  EXPECT_EQ(s.skipped_steps(), 1);
  for (int i = 0; i < 20000; ++i) s.update(false);  // 10 growths, capped at 2^24
  EXPECT_EQ(s.scale(), 16777216.0);
  for (int i = 0; i < 30; ++i) s.update(true);  // min_loss_scale=None: no floor
  EXPECT_EQ(s.scale(), std::ldexp(1.0, 24 - 30));
  EXPECT_EQ(s.skipped_steps(), 31);
}

TEST(LossScale, GnmtDynamicGrowsAfter2048CleanStepsUpTo8192) {
  LossScale s(LossScalePolicy::gnmt_dynamic());
  EXPECT_FALSE(s.update(true));
  EXPECT_EQ(s.scale(), 4096);
  for (int i = 0; i < 2047; ++i) s.update(false);
  EXPECT_EQ(s.scale(), 4096);
  s.update(false);
  EXPECT_EQ(s.scale(), 8192);
  for (int i = 0; i < 2048; ++i) s.update(false);
  EXPECT_EQ(s.scale(), 8192);  // capped
  s.update(false);
  s.update(true);  // an overflow restarts the count of clean steps
  for (int i = 0; i < 2047; ++i) s.update(false);
  EXPECT_EQ(s.scale(), 4096);
}

// ---- scaler and master weights on CPU tensors ------------------------------

TEST(LossScaler, StaticUnscalesWithoutCheckingEvenAnInf) {
  LossScaler scaler(LossScalePolicy::fixed(8));
  auto p = torch::zeros({2}, torch::requires_grad());
  scaler.scale((p + 1).sum() * 3).backward();
  EXPECT_TRUE(torch::allclose(p.grad(), torch::full({2}, 24.0f)));
  EXPECT_TRUE(scaler.unscale({p}));
  EXPECT_TRUE(torch::allclose(p.grad(), torch::full({2}, 3.0f)));
  p.mutable_grad() = torch::tensor({INFINITY, 1.0f});
  EXPECT_TRUE(scaler.unscale({p}));  // not checked: the step is applied
  EXPECT_EQ(scaler.state().scale(), 8);
}

TEST(LossScaler, DynamicSkipsOnInfOrNanAndBacksOff) {
  LossScalePolicy policy = LossScalePolicy::apex_dynamic();
  policy.init = 1024;
  LossScaler scaler(policy);
  auto a = torch::zeros({2}), b = torch::zeros({3});
  a.mutable_grad() = torch::full({2}, 2048.0f);
  b.mutable_grad() = torch::full({3}, 1024.0f);
  EXPECT_TRUE(scaler.unscale({a, b}));
  EXPECT_TRUE(torch::allclose(a.grad(), torch::full({2}, 2.0f)));
  EXPECT_TRUE(torch::allclose(b.grad(), torch::full({3}, 1.0f)));
  b.mutable_grad() = torch::tensor({1.0f, NAN, 0.0f});
  EXPECT_FALSE(scaler.unscale({a, b}));
  EXPECT_EQ(scaler.state().scale(), 512);
  b.mutable_grad() = torch::tensor({-INFINITY, 1.0f, 0.0f});
  EXPECT_FALSE(scaler.unscale({a, b}));
  EXPECT_EQ(scaler.state().skipped_steps(), 2);
}

TEST(LossScaler, ApexReadsEachGradientInOrderAndStopsAtTheFirstOverflow) {
  LossScaler scaler(LossScalePolicy::apex_dynamic());  // 2^16
  auto a = torch::zeros({2}), b = torch::zeros({2}), c = torch::zeros({2});
  a.mutable_grad() = torch::full({2}, 65536.0f);
  b.mutable_grad() = torch::tensor({INFINITY, 1.0f});
  c.mutable_grad() = torch::full({2}, 65536.0f);
  EXPECT_FALSE(scaler.unscale({a, b, c}));
  EXPECT_TRUE(torch::allclose(a.grad(), torch::ones({2})));            // before the overflow: unscaled
  EXPECT_TRUE(torch::allclose(c.grad(), torch::full({2}, 65536.0f)));  // after it: never reached
  EXPECT_EQ(scaler.state().scale(), 32768.0);
}

// The original's convnet_fp16 (conv_simple.py:60-68): SGD built over float32
// parameters, then the model halved in place; a step on the CPU with float16
// weights (elementwise ops only: CPU float16 matmuls need torch 2.x).
TEST(ApexFp16Step, SgdStepsTheFloat16WeightsThemselvesWithNoMasterCopy) {
  torch::nn::Sequential model(torch::nn::Conv2d(torch::nn::Conv2dOptions(2, 2, 1).bias(false)),
                              torch::nn::BatchNorm2d(2),
                              torch::nn::BatchNorm2d(torch::nn::BatchNormOptions(2).affine(false)));
  const auto params = model->parameters();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.5));
  model_to_half_keep_batchnorm(*model);
  const auto& held = opt.param_groups()[0].params();
  ASSERT_EQ(held.size(), 3u);
  EXPECT_EQ(held[0].scalar_type(), torch::kFloat16);  // the convolution: halved under the optimizer
  EXPECT_EQ(held[1].scalar_type(), torch::kFloat32);  // the affine BatchNorm: float32 again
  EXPECT_EQ(model->named_buffers()["2.running_mean"].scalar_type(), torch::kFloat16);  // not affine: stays half
  {
    torch::NoGradGuard ng;
    held[0].fill_(1.0);
  }
  const auto before_bn = held[1].detach().clone();
  LossScaler scaler(LossScalePolicy::apex_dynamic());
  auto loss = (held[0].to(torch::kFloat32) * 0.5).sum() + (held[1] * 2).sum();  // 0.5 x 2^16 fits float16
  ASSERT_TRUE(apex_fp16_step(opt, scaler, params, loss));
  EXPECT_EQ(held[0].scalar_type(), torch::kFloat16);
  EXPECT_EQ(held[0].grad().scalar_type(), torch::kFloat16);
  EXPECT_TRUE(torch::equal(held[0], torch::full_like(held[0], 0.75)));  // 1 - 0.5 * 0.5, in float16
  EXPECT_TRUE(torch::allclose(held[1], before_bn - 1.0));
  EXPECT_EQ(scaler.state().scale(), 65536.0);
}

TEST(ApexFp16Step, AnOverflowSkipsTheStepAndHalvesTheScale) {
  auto w = torch::ones({3}, torch::TensorOptions().dtype(torch::kFloat16).requires_grad(true));
  torch::optim::SGD opt({w}, torch::optim::SGDOptions(0.5));
  LossScaler scaler(LossScalePolicy::apex_dynamic());
  // 70000 x 2^16 overflows float16 (max 65504): the step is skipped.
  EXPECT_FALSE(apex_fp16_step(opt, scaler, {w}, (w.to(torch::kFloat32) * 70000).sum()));
  EXPECT_TRUE(torch::equal(w, torch::ones_like(w)));
  EXPECT_EQ(scaler.state().scale(), 32768.0);
  EXPECT_EQ(scaler.state().skipped_steps(), 1);
  // At 2^15, 1.5 x 2^15 fits: applied, the stale gradient zeroed first.
  EXPECT_TRUE(apex_fp16_step(opt, scaler, {w}, (w.to(torch::kFloat32) * 1.5).sum()));
  EXPECT_TRUE(torch::equal(w, torch::full_like(w, 0.25)));  // 1 - 0.5 * 1.5
  EXPECT_EQ(scaler.state().scale(), 32768.0);
}

TEST(Fp16MasterWeights, StepsTheFloat32MastersAndCopiesThemBack) {
  auto w = torch::ones({3}, torch::requires_grad());
  Fp16MasterWeights m({w}, LossScalePolicy::fixed(128));
  torch::optim::SGD opt(m.master_params(), torch::optim::SGDOptions(0.5));
  m.backward((w * 2).sum());
  EXPECT_TRUE(torch::allclose(w.grad(), torch::full({3}, 256.0f)));  // scaled
  ASSERT_TRUE(m.unscale());
  EXPECT_TRUE(torch::allclose(m.master_params()[0].grad(), torch::full({3}, 2.0f)));
  opt.step();
  m.copy_to_model();
  EXPECT_TRUE(torch::allclose(w, torch::zeros({3})));  // 1 - 0.5 * 2
}

TEST(Fp16MasterWeights, DynamicOverflowSkipsTheStepAndHalvesTheScale) {
  auto w = torch::ones({3}, torch::requires_grad());
  Fp16MasterWeights m({w}, LossScalePolicy::apex_dynamic());
  const double scale = m.loss_scale().scale();
  m.backward(w.sum() * INFINITY);
  EXPECT_FALSE(m.unscale());
  EXPECT_EQ(m.loss_scale().scale(), scale / 2);
  m.backward(w.sum());  // clears the previous gradients first
  EXPECT_TRUE(m.unscale());
  EXPECT_TRUE(torch::allclose(m.master_params()[0].grad(), torch::ones({3})));
}

TEST(ClipGradNorm, MatchesTorchsClipAndReturnsTheNorm) {
  auto a = torch::zeros({2}), b = torch::zeros({2}), c = torch::zeros({2});
  a.mutable_grad() = torch::tensor({3.0f, 0.0f});
  b.mutable_grad() = torch::tensor({0.0f, 4.0f});
  auto ref_a = a.detach().clone(), ref_b = b.detach().clone();
  ref_a.mutable_grad() = a.grad().clone(), ref_b.mutable_grad() = b.grad().clone();
  auto norm = clip_grad_norm({a, b, c}, 1.0);  // c has no gradient
  const double ref_norm = torch::nn::utils::clip_grad_norm_(std::vector<torch::Tensor>{ref_a, ref_b}, 1.0);
  EXPECT_NEAR(norm.item<double>(), 5.0, 1e-5);
  EXPECT_NEAR(ref_norm, 5.0, 1e-5);
  EXPECT_TRUE(torch::allclose(a.grad(), ref_a.grad()));
  EXPECT_TRUE(torch::allclose(b.grad(), ref_b.grad()));
  EXPECT_NEAR(torch::cat({a.grad(), b.grad()}).norm().item<double>(), 1.0, 1e-4);
  auto small = clip_grad_norm({a, b}, 10.0);  // below the bound: unchanged
  EXPECT_NEAR(small.item<double>(), 1.0, 1e-4);
  EXPECT_NEAR(torch::cat({a.grad(), b.grad()}).norm().item<double>(), 1.0, 1e-4);
  EXPECT_EQ(clip_grad_norm({c}, 1.0).item<double>(), 0.0);
}

// ---- autocast --------------------------------------------------------------

TEST(AutocastScope, CpuBfloat16InsideRestoredOutsideAndNested) {
  auto x = torch::randn({4, 4});
  EXPECT_FALSE(compat::autocast_enabled(torch::kCPU));
  {
    AutocastScope outer(torch::kCPU, torch::kBFloat16);
    EXPECT_TRUE(compat::autocast_enabled(torch::kCPU));
    EXPECT_EQ(torch::mm(x, x).scalar_type(), torch::kBFloat16);
    {
      AutocastScope off(torch::kCPU, torch::kBFloat16, /*enabled=*/false);
      EXPECT_EQ(torch::mm(x, x).scalar_type(), torch::kBFloat16);  // a disabled scope changes nothing
    }
    EXPECT_TRUE(compat::autocast_enabled(torch::kCPU));
  }
  EXPECT_FALSE(compat::autocast_enabled(torch::kCPU));
  EXPECT_EQ(torch::mm(x, x).scalar_type(), torch::kFloat);
  EXPECT_EQ(compat::autocast_dtype(torch::kCPU), torch::kBFloat16);  // torch's CPU default, restored
}

TEST(TorchCompat, NamesTheLibtorchItWasBuiltWith) {
  const std::string v = compat::torch_version();
  EXPECT_TRUE(v.rfind("1.", 0) == 0 || v.rfind("2.", 0) == 0) << v;
}

// ---- CUDA: the CPU part everywhere, the device part on a GPU (CUDA_PART) ---

// A workload's run as `milarun run --cuda` configures it: the harness's and
// the workload's flags on one parser, checked as `milarun jobs` checks them.
struct PreparedRun {
  const WorkloadInfo* info = nullptr;
  std::unique_ptr<Workload> workload;
  RunSettings settings;
  std::unique_ptr<CLI::App> app;
};
PreparedRun prepare_run(const std::string& name, std::vector<std::string> args, int64_t max_count,
                        const std::string& dataroot) {
  PreparedRun p;
  p.info = find_workload(name);
  EXPECT_NE(p.info, nullptr) << name;
  if (!p.info) return p;
  EXPECT_EQ(check_run_arguments(name, args, dataroot), "");
  p.workload = p.info->make();
  p.app = configure_run_app(*p.info, *p.workload, p.settings);
  args.insert(args.end(), {"--max-count", std::to_string(max_count), "--stop-at-count"});
  std::ostringstream out, err;
  EXPECT_EQ(parse_run_args(*p.app, *p.info, p.settings, args, out, err), -1) << err.str();
  return p;
}

// The prepared run on CUDA device 0 through a real Session whose meter syncs
// the device with compat::device_synchronize (as `milarun run --cuda` does).
struct CudaRun {
  int64_t count = 0;
  int syncs = 0;
  nlohmann::json extra;
};
CudaRun train_on_cuda(PreparedRun& p, const std::string& dataroot) {
  torch::manual_seed(0);
  MeterOptions opts = p.settings.meter;
  opts.sample_duration = 1e-4;
  CudaRun out;
  RateMeter meter(
      opts, [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); },
      [&out] {
        compat::device_synchronize();
        ++out.syncs;
      });
  meter.start();
  Session s(meter, torch::Device(torch::kCUDA, 0), dataroot, p.settings.torch.workers, p.settings.torch.seed);
  p.workload->run(s);
  out.count = meter.count();
  out.extra = test::outputs_json(s);
  return out;
}

TEST(MixedPrecisionCuda, AutocastScopeRunsMatmulsInFloat16) {
  {
    AutocastScope scope(torch::kCUDA, torch::kFloat16);  // the state is per device type, set without a GPU
    EXPECT_TRUE(compat::autocast_enabled(torch::kCUDA));
    EXPECT_EQ(compat::autocast_dtype(torch::kCUDA), torch::kFloat16);
  }
  EXPECT_FALSE(compat::autocast_enabled(torch::kCUDA));
  CUDA_PART();
  auto x = torch::randn({8, 8}, torch::Device(torch::kCUDA));
  {
    AutocastScope scope(torch::kCUDA, torch::kFloat16);
    EXPECT_EQ(torch::mm(x, x).scalar_type(), torch::kFloat16);
  }
  EXPECT_EQ(torch::mm(x, x).scalar_type(), torch::kFloat);
}

TEST(MixedPrecisionCuda, Float16ModelWithMastersLearnsAndSkipsAnOverflow) {
  torch::manual_seed(0);
  torch::nn::Linear lin(16, 1);
  const bool cuda = torch::cuda::is_available();
  if (cuda) lin->to(torch::Device(torch::kCUDA));
  model_to_half_keep_batchnorm(*lin);
  ASSERT_EQ(lin->weight.scalar_type(), torch::kFloat16);
  LossScalePolicy from_2_to_32 = LossScalePolicy::apex_dynamic();
  from_2_to_32.init = 4294967296.0;
  Fp16MasterWeights m(lin->parameters(), from_2_to_32);
  ASSERT_EQ(m.master_params().size(), 2u);
  EXPECT_EQ(m.master_params()[0].scalar_type(), torch::kFloat);
  torch::optim::SGD opt(m.master_params(), torch::optim::SGDOptions(0.05));
  CUDA_PART();
  auto x = torch::randn({64, 16}, torch::Device(torch::kCUDA)).to(torch::kFloat16);
  auto y = x.to(torch::kFloat).sum(1, true).to(torch::kFloat16);
  double first = 0, last = 0;
  for (int i = 0; i < 200; ++i) {
    auto loss = torch::mse_loss(lin->forward(x), y);
    if (i == 0) first = loss.item<double>();
    last = loss.item<double>();
    m.backward(loss);  // 2^32 overflows float16 gradients until the scale has come down
    if (m.unscale()) {
      opt.step();
      m.copy_to_model();
    }
  }
  EXPECT_GT(m.loss_scale().skipped_steps(), 0);
  EXPECT_LT(m.loss_scale().scale(), 4294967296.0);
  EXPECT_LT(last, first / 4) << "first " << first << ", last " << last;
}

TEST(PinnedMemoryCuda, PinnedHostBatchesCopyNonBlockingIntact) {
  auto plain = torch::arange(1 << 20, torch::TensorOptions().dtype(torch::kFloat));
  EXPECT_FALSE(plain.is_pinned());
  CUDA_PART();
  auto host = torch::arange(1 << 20, torch::TensorOptions().dtype(torch::kFloat).pinned_memory(true));
  ASSERT_TRUE(host.is_pinned());
  auto dev = host.to(torch::Device(torch::kCUDA), /*non_blocking=*/true);
  compat::device_synchronize();
  EXPECT_TRUE(torch::equal(dev.cpu(), host));
}

TEST(PinnedMemoryCuda, ConvnetHalfTrainsFromThePinnedLoaderInFloat16) {
  const std::string data = test::generated_dataroot("fake_imagenet", test::kTinyImagenetScale);
  auto p = prepare_run("convnet",
                       {"--dataset", "milarun.datasets:fake_imagenet", "--batch-size", "4", "--workers", "2",
                        "--image-size", "64", "--half", "--cuda"},
                       16, data);
  EXPECT_EQ(p.settings.torch.workers, 2);
  CUDA_PART();
  auto r = train_on_cuda(p, data);
  EXPECT_GE(r.count, 16);
  EXPECT_EQ(r.extra["metrics"]["precision"], "float16");
  EXPECT_EQ(r.extra["metrics"]["optimizer_weights"], "float16");  // no float32 masters, as the original
  EXPECT_LE(r.extra["metrics"]["loss_scale"].get<double>(), 65536.0);
  EXPECT_GT(r.syncs, 0);  // the meter synced the device at each slice
}

TEST(MeterSyncCuda, Wlmfp16TrainsTheFloat16ModelWithStaticScale128) {
  const std::string data = test::generated_dataroot("wiki2", 0.002);
  auto p = prepare_run("wlmfp16", {"--batch-size", "8", "--bptt", "8", "--emsize", "16", "--nhid", "16", "--cuda"},
                       8 * 5, data);
  CUDA_PART();
  auto r = train_on_cuda(p, data);
  EXPECT_EQ(r.count, 8 * 5);
  EXPECT_EQ(r.extra["metrics"]["precision"], "float16");
  EXPECT_EQ(r.extra["metrics"]["loss_scale"], 128.0);
  EXPECT_EQ(r.extra["metrics"]["vocabulary"].get<int64_t>() % 8, 0);
  EXPECT_TRUE(std::isfinite(r.extra["metrics"]["loss"].get<double>()));
  EXPECT_GE(r.syncs, 5);  // a slice closes on every step here
}

// NCCL: a build without it refuses in one line; with it, a one-rank group
// all-reduces on the GPU, the vote travels with the last bucket, and the
// result names the NCCL of libtorch and of the header this file was built
// with (they must agree: data_parallel.cpp).
TEST(NcclCuda, OneRankGroupAllReducesOnTheGpu) {
  Rendezvous where;
  where.rank = 0, where.world_size = 1, where.master_addr = "127.0.0.1", where.master_port = free_tcp_port();
  where.source = "test";
  const auto nccl = [&] {
    return std::make_unique<DataParallelGroup>(where, "nccl", std::chrono::seconds(60), /*group_when_alone=*/true,
                                               torch::Device(torch::kCUDA, 0));
  };
  if (!compat::built_with_nccl()) {
    try {
      nccl();
      FAIL() << "a build without NCCL formed an NCCL group";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("this build has no NCCL"), std::string::npos) << e.what();
    }
    GTEST_SKIP() << "skipped: no NCCL in this build (the refusal was checked)";
  }
  CUDA_PART();
  auto g = nccl();
  EXPECT_EQ(g->describe_backend()["nccl_header"], g->describe_backend()["nccl_torch"]);
  auto w = torch::full({5}, 3.0f, torch::Device(torch::kCUDA)).requires_grad_(true);
  g->attach({w});
  g->zero_grad(0.0f);
  (w * 2).sum().backward();
  g->finish_gradients();
  EXPECT_EQ(g->read_vote(), 0.0f);
  EXPECT_TRUE(torch::equal(w.grad().cpu(), torch::full({5}, 2.0f)));
  g->zero_grad(-1.0f);  // the stop vote travels in the last bucket's all-reduce
  (w * 2).sum().backward();
  g->finish_gradients();
  EXPECT_EQ(g->read_vote(), -1.0f);
  EXPECT_EQ(g->gather_to_rank0("mine"), (std::vector<std::string>{"mine"}));
}

}  // namespace
}  // namespace milabench
