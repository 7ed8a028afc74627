#include <gtest/gtest.h>
#include <torch/torch.h>

#include <array>
#include <functional>
#include <thread>

#include "launch/rendezvous.hpp"
#include "measure/stop_schedule.hpp"
#include "models/alexnet.hpp"
#include "test_support.hpp"
#include "training/data_parallel.hpp"

using namespace milabench;

// Two ranks in one process need Gloo; a build on PyTorch's pip wheel has none.
#define SKIP_WITHOUT_GLOO() \
  if (!DataParallelGroup::backend_available("gloo")) GTEST_SKIP() << "skipped: no Gloo in this build"

namespace {
// Ranks 0 and 1 of a Gloo world on loopback, each running `body` in a thread
// of this process; returns what each threw ("" when nothing).
std::array<std::string, 2> two_ranks(const std::function<void(int rank, const Rendezvous& where)>& body) {
  const int port = free_tcp_port();
  std::array<std::string, 2> errors;
  auto rank_main = [&](int rank) {
    try {
      Rendezvous where;
      where.rank = rank, where.world_size = 2, where.master_port = port, where.source = "test";
      body(rank, where);
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
  };
  std::thread t1(rank_main, 1);
  rank_main(0);
  t1.join();
  return errors;
}
}  // namespace

TEST(AlexNet, HasTorchvisionParameterCountAndLayerNames) {
  AlexNet net;
  int64_t total = 0;
  for (const auto& p : net->parameters()) total += p.numel();
  EXPECT_EQ(total, 61100840);  // torchvision.models.alexnet()
  auto params = net->named_parameters();
  ASSERT_TRUE(params.contains("features.0.weight"));
  EXPECT_EQ(params["features.0.weight"].sizes(), (std::vector<int64_t>{64, 3, 11, 11}));
  ASSERT_TRUE(params.contains("classifier.1.weight"));
  EXPECT_EQ(params["classifier.1.weight"].sizes(), (std::vector<int64_t>{4096, 9216}));
  ASSERT_TRUE(params.contains("classifier.6.bias"));
  EXPECT_EQ(params["classifier.6.bias"].size(0), 1000);
}

TEST(AlexNet, SmallInputsGiveLogitsThroughAdaptivePooling) {
  torch::NoGradGuard no_grad;
  AlexNet net(10);
  net->eval();
  EXPECT_EQ(net->forward(torch::randn({2, 3, 64, 64})).sizes(), (std::vector<int64_t>{2, 10}));
}

TEST(ScalingWorkload, RegisteredUnderTheOriginalExperiment) {
  const WorkloadInfo* w = find_workload("milarun.models.scaling:main");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->name, "scaling");
  EXPECT_EQ(w->count_unit, "images");
  EXPECT_EQ(w->default_max_count, 50000);
}

TEST(ScalingWorkload, OneRankTrainsAndRecordsTrain0) {
  auto r = test::run_workload("scaling", {"--network", "alexnet", "--batch-size", "2", "--image-size", "64"}, 6);
  EXPECT_EQ(r.count, 6);                              // --batch-size per step
  EXPECT_FALSE(r.extra["metrics"].contains("loss"));  // the original reads nothing per step
  EXPECT_EQ(r.extra["metrics"]["world_size"], 1);
  // torch 1.5 DDP's buckets over AlexNet (Ddp15Buckets below); each is
  // complete (and would be all-reduced) inside backward.
  EXPECT_EQ(r.extra["metrics"]["gradient_buckets"], 4);
  EXPECT_EQ(r.extra["metrics"]["buckets_overlapped_with_backward"], 4);
  EXPECT_EQ(r.extra["model"]["parameters"], 61100840);
  EXPECT_EQ(r.extra["distributed"]["world_size"], 1);
  EXPECT_EQ(r.extra["distributed"]["backend"], "gloo");
  EXPECT_FALSE(r.extra.contains("sub_job"));
  ASSERT_TRUE(r.extra["timings"].contains("train_0")) << r.extra.dump();
  EXPECT_EQ(r.extra["timings"]["train_0"]["count"], 6);
}

TEST(ScalingWorkload, BadFlagsSayWhatToFix) {
  try {
    test::run_workload("scaling", {"--network", "resnet50"}, 2);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--network resnet50"), std::string::npos) << e.what();
  }
  EXPECT_THROW(test::run_workload("scaling", {"--rank", "1"}, 2), std::runtime_error);
  EXPECT_THROW(test::run_workload("scaling", {"--image-size", "32"}, 2), std::runtime_error);
  EXPECT_THROW(test::run_workload("scaling", {"--dist-backend", "mpi", "--batch-size", "1", "--image-size", "64"}, 2),
               std::runtime_error);
}

// Two ranks (threads of this process) over Gloo on loopback: rank 0's weights
// win, gradients are averaged, one stop vote stops both, rank 0 gathers.
TEST(DataParallelGroup, GlooAveragesGradientsSharesStopAndGathers) {
  SKIP_WITHOUT_GLOO();
  struct Out {
    std::vector<float> weight, grad;
    bool stop_first = true, stop_second = false;
    std::vector<std::string> gathered;
  } out[2];
  auto errors = two_ranks([&](int rank, const Rendezvous& where) {
    DataParallelGroup g(where, "gloo", std::chrono::seconds(30));
    auto w = torch::full({3}, static_cast<float>(rank + 5)).requires_grad_(true);
    g.attach({w});
    g.zero_grad(0.0f);
    (w * static_cast<float>(rank + 1)).sum().backward();  // gradient rank + 1
    g.finish_gradients();
    out[rank].stop_first = g.read_vote() < 0;
    out[rank].grad = std::vector<float>(w.grad().data_ptr<float>(), w.grad().data_ptr<float>() + 3);
    out[rank].weight = std::vector<float>(w.data_ptr<float>(), w.data_ptr<float>() + 3);
    g.zero_grad(rank == 1 ? -1.0f : 0.0f);
    w.sum().backward();
    g.finish_gradients();
    out[rank].stop_second = g.read_vote() < 0;
    out[rank].gathered = g.gather_to_rank0("rank" + std::to_string(rank));
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(errors[r], "") << "rank " << r;
    EXPECT_EQ(out[r].weight, (std::vector<float>{5, 5, 5})) << "rank " << r;
    EXPECT_EQ(out[r].grad, (std::vector<float>{1.5f, 1.5f, 1.5f})) << "rank " << r;
    EXPECT_FALSE(out[r].stop_first);
    EXPECT_TRUE(out[r].stop_second);
  }
  EXPECT_EQ(out[0].gathered, (std::vector<std::string>{"rank0", "rank1"}));
  EXPECT_TRUE(out[1].gathered.empty());
}

// DDP's work: buckets in reverse definition order, each all-reduced from the
// backward hook of its last gradient, i.e. while backward still runs.
TEST(DataParallelGroup, StartsEachBucketsAllreduceFromBackwardAndAverages) {
  SKIP_WITHOUT_GLOO();
  struct Out {
    int64_t buckets = 0, overlapped = 0;
    std::vector<std::vector<float>> grads;
  } out[2];
  auto errors = two_ranks([&](int rank, const Rendezvous& where) {
    DataParallelGroup g(where, "gloo", std::chrono::seconds(30));
    // Three layers of 4 floats (16 bytes): caps of 16 bytes give one bucket each.
    std::vector<torch::Tensor> w;
    for (int i = 0; i < 3; ++i) w.push_back(torch::ones({4}).requires_grad_(true));
    g.attach(w, 16, 16);
    g.zero_grad();
    auto x = torch::full({4}, static_cast<float>(rank + 1));
    ((x * w[0] * w[1] * w[2]).sum() * float(rank + 1)).backward();  // each gradient (rank + 1)^2
    g.finish_gradients();
    out[rank].buckets = g.buckets();
    out[rank].overlapped = g.launched_during_backward();
    for (auto& p : w) out[rank].grads.emplace_back(p.grad().data_ptr<float>(), p.grad().data_ptr<float>() + 4);
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(errors[r], "") << "rank " << r;
    EXPECT_EQ(out[r].buckets, 3);
    EXPECT_EQ(out[r].overlapped, 3);
    for (const auto& grad : out[r].grads) EXPECT_EQ(grad, (std::vector<float>(4, 2.5f)));  // (1 + 4) / 2
  }
}

TEST(DataParallelGroup, OneRankKeepsThePlainGradientAndDefaultBucketCaps) {
  Rendezvous where;  // world of one: no store, no process group
  DataParallelGroup g(where, "gloo", std::chrono::seconds(1));
  auto small = torch::ones({10}).requires_grad_(true);
  auto big = torch::ones({300000}).requires_grad_(true);  // 1.2 MB: closes the 1 MiB first bucket
  auto last = torch::ones({10}).requires_grad_(true);
  g.attach({small, big, last});
  // Definition order: [small, big] closes the 1 MiB bucket, [last] is left;
  // reversed for launch.
  EXPECT_EQ(g.bucket_params(), (std::vector<std::vector<int64_t>>{{2}, {0, 1}}));
  for (int step = 0; step < 2; ++step) {
    g.zero_grad(step == 1 ? -1.0f : 0.0f);
    ((small * 3).sum() + (big * 2).sum() + last.sum()).backward();
    g.finish_gradients();
    EXPECT_EQ(g.read_vote() < 0, step == 1);
    EXPECT_TRUE(torch::equal(small.grad(), torch::full({10}, 3.0f)));
    EXPECT_TRUE(torch::equal(big.grad(), torch::full({300000}, 2.0f)));
    EXPECT_TRUE(torch::equal(last.grad(), torch::ones({10})));
  }
}

TEST(DataParallelGroup, NoPeerFailsWithTheAddressAfterTheTimeout) {
  SKIP_WITHOUT_GLOO();
  Rendezvous where;
  where.rank = 1, where.world_size = 2, where.master_port = free_tcp_port();
  try {
    DataParallelGroup g(where, "gloo", std::chrono::milliseconds(1500));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(where.master_port)), std::string::npos)
        << e.what();
  }
}

// torch 1.5's DistributedDataParallel over AlexNet's 16 parameters in
// definition order: conv1 (w, b) + conv2.w pass 1 MiB; then conv2.b .. fc1.w
// pass 25 MiB; fc1.b + fc2.w; fc2.b, fc3 (w, b) are left over. Reversed for
// launch, so the classifier's last layer is reduced first.
TEST(DataParallelGroup, AssignsAlexNetsBucketsAsTorch15Ddp) {
  AlexNet net;
  std::vector<int64_t> bytes;
  for (const auto& p : net->parameters()) bytes.push_back(p.numel() * 4);
  ASSERT_EQ(bytes.size(), 16u);
  auto buckets = ddp15_bucket_assignment(bytes, int64_t(1) << 20, int64_t(25) << 20);
  EXPECT_EQ(buckets, (std::vector<std::vector<int64_t>>{{13, 14, 15}, {11, 12}, {3, 4, 5, 6, 7, 8, 9, 10}, {0, 1, 2}}));
  Rendezvous alone;
  DataParallelGroup g(alone, "gloo", std::chrono::seconds(1));
  g.attach(net->parameters());
  EXPECT_EQ(g.bucket_params(), buckets);
}

// Two ranks stop on the same step although only rank 0's meter is done, and
// the vote is read only on the schedule's check steps: the step after
// --max-count, then one slice's worth of steps apart.
TEST(DataParallelGroup, RanksLeaveTogetherReadingTheVoteOnlyOnCheckSteps) {
  SKIP_WITHOUT_GLOO();
  struct Out {
    int64_t steps = 0, reads = 0;
  } out[2];
  auto errors = two_ranks([&](int rank, const Rendezvous& where) {
    DataParallelGroup g(where, "gloo", std::chrono::seconds(30));
    auto w = torch::ones({2}).requires_grad_(true);
    g.attach({w});
    StopSchedule schedule(/*max_count=*/8, /*count_per_step=*/2, /*until_stable=*/false);  // 4 steps
    for (int64_t step = 1;; ++step) {
      const bool done = step > 9;  // rank 0's meter: done after 9 counted steps (an extension)
      const bool check = schedule.is_check(step);
      g.zero_grad(check ? StopSchedule::vote(rank == 0, done, /*steps_per_slice=*/3) : 0.0f);
      w.sum().backward();
      g.finish_gradients();
      if (check) {
        ++out[rank].reads;
        if (schedule.leave(g.read_vote(), step)) break;
      }
      ++out[rank].steps;
    }
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(errors[r], "") << "rank " << r;
    // checks at 5 (not done: next in 3), 8 (not done), 11 (done: leave) -> 10 counted steps
    EXPECT_EQ(out[r].reads, 3) << "rank " << r;
    EXPECT_EQ(out[r].steps, 10) << "rank " << r;
  }
}
