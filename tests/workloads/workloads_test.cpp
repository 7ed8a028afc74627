#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "test_support.hpp"
#include "data/mnist.hpp"
#include "envs/cart_pole.hpp"
#include "measure/rate_meter.hpp"
#include "workloads/session.hpp"
#include "workloads/workload.hpp"

namespace fs = std::filesystem;
using namespace milabench;
using namespace milabench::test;

namespace {

int64_t params(const RunOutcome& r) { return r.extra["model"]["parameters"].get<int64_t>(); }

}  // namespace

TEST(Registry, FindsByNameAndExperiment) {
  for (const char* n : {"polynome", "sine_wave", "vae", "cart_pole"}) {
    const WorkloadInfo* w = find_workload(n);
    ASSERT_NE(w, nullptr) << n;
    EXPECT_EQ(find_workload(w->experiments.at(0)), w);
    std::string alias = "milabench.models." + w->experiments[0].substr(std::string("milarun.models.").size());
    EXPECT_EQ(find_workload(alias), w) << alias;
  }
  EXPECT_EQ(find_workload("milarun.models.nope:main"), nullptr);
  EXPECT_EQ(find_workload("nope"), nullptr);
}

TEST(Polynome, ShortRun) {
  auto r = run_workload("polynome", {"--poly-degree", "4", "--batch-size", "64"}, 64 * 300);
  EXPECT_GE(r.count, 64 * 300);
  EXPECT_EQ(params(r), 5);  // Linear(4, 1)
  expect_finite_loss(r);
}

TEST(SineWave, ShortRunFloat32) {
  // One LBFGS step (20 evaluations over 999 time steps) on one series: ~15 s on 2 cores.
  auto r = run_workload("sine_wave", {"--dtype", "float32", "--samples", "4"}, 1);
  EXPECT_GE(r.count, 1);
  // LSTMCell(1,51): 4*51*(1+51) + 2*4*51 = 11016; LSTMCell(51,51): 4*51*102 + 408 = 21216; Linear(51,1): 52
  EXPECT_EQ(params(r), 11016 + 21216 + 52);
  expect_finite_loss(r);
}

TEST(SineWave, RejectsBadDtype) {
  EXPECT_THROW(run_workload("sine_wave", {"--dtype", "int8"}, 1), std::invalid_argument);
}

TEST(CartPoleEnv, PushingOneWayTerminates) {
  CartPole env(1, 500);
  env.reset();
  CartPoleStep r{};
  int n = 0;
  do {
    r = env.step(1);
    ++n;
  } while (!r.done && n < 500);
  EXPECT_TRUE(r.done);
  EXPECT_FALSE(r.truncated);
  EXPECT_LT(n, 100);
  EXPECT_TRUE(std::abs(r.state[0]) > CartPole::kXThreshold || std::abs(r.state[2]) > CartPole::kThetaThreshold);
  EXPECT_THROW(env.step(0), std::logic_error);
}

TEST(CartPoleEnv, EpisodeLengthCap) {
  CartPole env(7, 6);
  auto s0 = env.reset();
  for (double v : s0) EXPECT_LE(std::abs(v), 0.05);
  CartPoleStep r{};
  for (int i = 0; i < 6; ++i) {
    ASSERT_FALSE(env.done());
    r = env.step(i % 2);
    EXPECT_EQ(r.reward, 1.0);
  }
  EXPECT_TRUE(r.done);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(env.steps(), 6);
}

TEST(CartPoleEnv, SeededReset) {
  CartPole a(42), b(42);
  EXPECT_EQ(a.reset(), b.reset());
}

TEST(CartPole, ShortRun) {
  auto r = run_workload("cart_pole", {"--gamma", "0.99", "--no-render", "--episode-length", "500"}, 300);
  EXPECT_GE(r.count, 300);
  EXPECT_EQ(params(r), 4 * 128 + 128 + 128 * 2 + 2);  // 898
  expect_finite_loss(r);
}

TEST(Mnist, GenerateAndReadBack) {
  TempDir d("mnist");
  {
    std::ofstream m(d.path / "MANIFEST.json");
    m << R"({"other": {"synthetic": false}})";
  }
  EXPECT_EQ(mnist_provenance(d.str())["synthetic"], "unknown");
  generate_mnist(d.str(), 0.002);
  auto train = read_mnist(d.str(), true);
  auto test = read_mnist(d.str(), false);
  EXPECT_EQ(train.images.sizes(), (std::vector<int64_t>{120, 28, 28}));
  EXPECT_EQ(test.images.sizes(), (std::vector<int64_t>{20, 28, 28}));
  EXPECT_EQ(train.labels.size(0), 120);
  EXPECT_GE(train.labels.min().item<int64_t>(), 0);
  EXPECT_LE(train.labels.max().item<int64_t>(), 9);
  EXPECT_GT(train.images.to(torch::kFloat).mean().item<double>(), 5.0);  // strokes drawn
  auto p = mnist_provenance(d.str());
  EXPECT_EQ(p["name"], "mnist");
  EXPECT_EQ(p["synthetic"], true);
  std::ifstream m(d.path / "MANIFEST.json");
  auto manifest = nlohmann::json::parse(m);
  EXPECT_TRUE(manifest.contains("other"));
  EXPECT_EQ(manifest["mnist"]["files"], 4);
  EXPECT_EQ(manifest["mnist"]["generator"], "milarun");
}

TEST(Mnist, TruncatedFileNamesFile) {
  TempDir d("trunc");
  generate_mnist(d.str(), 0.001);
  std::string path = mnist_raw_dir(d.str()) + "/train-images-idx3-ubyte";
  fs::resize_file(path, 100);
  try {
    read_mnist(d.str(), true);
    FAIL() << "no error for truncated file";
  } catch (const std::runtime_error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("run: milarun dataset mnist -d"), std::string::npos) << msg;
  }
}

TEST(Mnist, BadMagicThrows) {
  TempDir d("magic");
  generate_mnist(d.str(), 0.001);
  std::string path = mnist_raw_dir(d.str()) + "/train-labels-idx1-ubyte";
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(3);
    f.put(char(0x03));
  }
  EXPECT_THROW(read_mnist(d.str(), true), std::runtime_error);
}

TEST(Vae, ShortRun) {
  TempDir d("vae");
  generate_mnist(d.str(), 0.002);  // 120 train images: the run spans epochs
  auto r = run_workload("vae", {"--dataset", "milarun.datasets:mnist", "--batch-size", "32"}, 300, d.str());
  EXPECT_GE(r.count, 300);
  EXPECT_EQ(params(r), 784 * 400 + 400 + 2 * (400 * 20 + 20) + 20 * 400 + 400 + 400 * 784 + 784);  // 652824
  expect_finite_loss(r);
  EXPECT_EQ(r.extra["dataset"]["synthetic"], true);
}

TEST(Vae, MissingDataTellsTheCommand) {
  TempDir d("vae_missing");
  try {
    run_workload("vae", {}, 10, d.str());
    FAIL() << "no error without data";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("milarun dataset mnist"), std::string::npos) << e.what();
  }
}
