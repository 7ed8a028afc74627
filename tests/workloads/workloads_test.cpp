#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "data/mnist.hpp"
#include "envs/cart_pole.hpp"
#include "measure/rate_meter.hpp"
#include "test_support.hpp"
#include "training/session.hpp"
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

TEST(Polynome, CountsTheBatchSizePerStep) {
  auto r = run_workload("polynome", {"--poly-degree", "4", "--batch-size", "64"}, 64 * 300 + 1);
  EXPECT_EQ(r.count, 64 * 301);  // whole batches only: the step that crosses max-count counts 64
  EXPECT_EQ(params(r), 5);       // Linear(4, 1)
  EXPECT_EQ(r.extra["metrics"]["updates"], 301);
  expect_finite_loss(r);
}

TEST(SineWave, CountsSamplesPerStepWithOneSgdUpdateEach) {
  // The original counts --samples per step although 3 series are held out,
  // and makes one forward/backward and one SGD update per step (not LBFGS).
  auto r = run_workload("sine_wave", {"--dtype", "float32", "--samples", "4"}, 5);
  EXPECT_EQ(r.count, 8);  // two steps of 4
  EXPECT_EQ(r.extra["metrics"]["updates"], 2);
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

TEST(CartPole, CountsEpisodeLengthPerUpdateAndResetsAtV0Limit) {
  // 2 iterations of exactly 500 environment steps, one update each; v0 ends
  // an episode at 200 steps at the latest, so each 500 holds >= 2 ends.
  auto r = run_workload("cart_pole", {"--gamma", "0.99", "--no-render", "--episode-length", "500"}, 501);
  EXPECT_EQ(r.count, 1000);
  EXPECT_EQ(r.extra["metrics"]["updates"], 2);
  EXPECT_LE(r.extra["metrics"]["longest_episode"].get<int64_t>(), 200);
  EXPECT_GE(r.extra["metrics"]["episodes_ended"].get<int64_t>(), 2 * 2);
  EXPECT_EQ(params(r), 4 * 128 + 128 + 128 * 2 + 2);  // 898: no dropout layer either way
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

TEST(Vae, CountsRealBatchSizesIncludingTheShortLastBatch) {
  TempDir d("vae");
  generate_mnist(d.str(), 0.002);  // 120 train images: batches of 32, 32, 32, 24 per epoch
  auto r = run_workload("vae", {"--dataset", "milarun.datasets:mnist", "--batch-size", "32"}, 121, d.str());
  EXPECT_EQ(r.count, 120 + 32);  // one epoch (its last batch counts 24), then one batch of the next
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

TEST(InitTorchDefaults, WorkloadsWithTheirOwnParserKeepTheOriginalsSeedAndWorkers) {
  // rnn_translator.py parses --seed 100 / --workers 8 itself, minigrid.py
  // --seed 1 (babyai) / --workers 8; the others use init_torch's 1234 / None.
  struct Case {
    const char* name;
    int64_t seed;
    int workers;
  };
  for (const Case& c : {Case{"translator", 100, 8}, Case{"minigrid", 1, 8}, Case{"polynome", 1234, 0}}) {
    CLI::App app;
    int64_t seed = 1234;
    int workers = 0;
    app.add_option("--seed", seed);
    app.add_option("--workers", workers);
    auto w = find_workload(c.name)->make();
    w->add_options(app);
    app.parse(std::vector<std::string>{});
    EXPECT_EQ(seed, c.seed) << c.name;
    EXPECT_EQ(workers, c.workers) << c.name;
    app.parse(std::vector<std::string>{"7", "--seed"});  // reversed, as CLI11 takes a vector
    EXPECT_EQ(seed, 7) << c.name;
  }
}
