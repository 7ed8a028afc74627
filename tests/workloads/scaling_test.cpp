#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

#include "launch/rendezvous.hpp"
#include "models/alexnet.hpp"
#include "test_support.hpp"
#include "workloads/data_parallel.hpp"

using namespace milabench;

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
  EXPECT_EQ(r.count, 6);  // --batch-size per step
  EXPECT_FALSE(r.extra["metrics"].contains("loss"));  // the original reads nothing per step
  EXPECT_EQ(r.extra["metrics"]["world_size"], 1);
  // DDP's buckets over AlexNet in reverse order: [fc3] closes the 1 MiB one,
  // [fc2] and [fc1] each pass 25 MiB, the five convolutions share the last;
  // each is complete (and would be all-reduced) inside backward.
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
  const int port = free_tcp_port();
  struct Out {
    std::vector<float> weight, grad;
    bool stop_first = true, stop_second = false;
    std::vector<std::string> gathered;
    std::string error;
  } out[2];
  auto rank_main = [&](int rank) {
    try {
      Rendezvous where;
      where.rank = rank, where.world_size = 2, where.master_port = port, where.source = "test";
      DataParallelGroup g(where, "gloo", std::chrono::seconds(30));
      auto w = torch::full({3}, static_cast<float>(rank + 5)).requires_grad_(true);
      g.attach({w});
      g.zero_grad(false);
      (w * static_cast<float>(rank + 1)).sum().backward();  // gradient rank + 1
      out[rank].stop_first = g.finish_gradients();
      out[rank].grad = std::vector<float>(w.grad().data_ptr<float>(), w.grad().data_ptr<float>() + 3);
      out[rank].weight = std::vector<float>(w.data_ptr<float>(), w.data_ptr<float>() + 3);
      g.zero_grad(rank == 1);
      w.sum().backward();
      out[rank].stop_second = g.finish_gradients();
      out[rank].gathered = g.gather_to_rank0("rank" + std::to_string(rank));
    } catch (const std::exception& e) {
      out[rank].error = e.what();
    }
  };
  std::thread t1(rank_main, 1);
  rank_main(0);
  t1.join();
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(out[r].error, "") << "rank " << r;
    EXPECT_EQ(out[r].weight, (std::vector<float>{5, 5, 5})) << "rank " << r;
    EXPECT_EQ(out[r].grad, (std::vector<float>{1.5f, 1.5f, 1.5f})) << "rank " << r;
    EXPECT_FALSE(out[r].stop_first);
    EXPECT_TRUE(out[r].stop_second);
  }
  EXPECT_EQ(out[0].gathered, (std::vector<std::string>{"rank0", "rank1"}));
  EXPECT_TRUE(out[1].gathered.empty());
}

// DDP's work: buckets in reverse parameter order, each all-reduced from the
// backward hook of its last gradient, i.e. while backward still runs.
TEST(DataParallelGroup, StartsEachBucketsAllreduceFromBackwardAndAverages) {
  const int port = free_tcp_port();
  struct Out {
    int64_t buckets = 0, overlapped = 0;
    std::vector<std::vector<float>> grads;
    std::string error;
  } out[2];
  auto rank_main = [&](int rank) {
    try {
      Rendezvous where;
      where.rank = rank, where.world_size = 2, where.master_port = port, where.source = "test";
      DataParallelGroup g(where, "gloo", std::chrono::seconds(30));
      // Three layers of 4 floats (16 bytes): caps of 16 bytes give one bucket each.
      std::vector<torch::Tensor> w;
      for (int i = 0; i < 3; ++i) w.push_back(torch::ones({4}).requires_grad_(true));
      g.attach(w, 16, 16);
      g.zero_grad(false);
      auto x = torch::full({4}, static_cast<float>(rank + 1));
      ((x * w[0] * w[1] * w[2]).sum() * float(rank + 1)).backward();  // each gradient (rank + 1)^2
      g.finish_gradients();
      out[rank].buckets = g.buckets();
      out[rank].overlapped = g.launched_during_backward();
      for (auto& p : w) out[rank].grads.emplace_back(p.grad().data_ptr<float>(), p.grad().data_ptr<float>() + 4);
    } catch (const std::exception& e) {
      out[rank].error = e.what();
    }
  };
  std::thread t1(rank_main, 1);
  rank_main(0);
  t1.join();
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(out[r].error, "") << "rank " << r;
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
  EXPECT_EQ(g.buckets(), 2);  // [last, big] then [small]
  for (int step = 0; step < 2; ++step) {
    g.zero_grad(step == 1);
    ((small * 3).sum() + (big * 2).sum() + last.sum()).backward();
    EXPECT_EQ(g.finish_gradients(), step == 1);
    EXPECT_TRUE(torch::equal(small.grad(), torch::full({10}, 3.0f)));
    EXPECT_TRUE(torch::equal(big.grad(), torch::full({300000}, 2.0f)));
    EXPECT_TRUE(torch::equal(last.grad(), torch::ones({10})));
  }
}

TEST(DataParallelGroup, NoPeerFailsWithTheAddressAfterTheTimeout) {
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
