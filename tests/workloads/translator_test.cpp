// wmt16 dataset (generator, reader, errors), the bucketing sampler, the GNMT
// model (parameter counts, masking, loss) and short CPU runs of translator.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "../core/test_files.hpp"
#include "data/dataset.hpp"
#include "data/length_bucketing.hpp"
#include "data/wmt16.hpp"
#include "measure/rate_meter.hpp"
#include "models/gnmt.hpp"
#include "test_support.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace fs = std::filesystem;
using namespace milabench;
using namespace milabench::test;

namespace {

RunOutcome run_translator(std::vector<std::string> args, int64_t max_count, const std::string& dataroot) {
  return run_workload("milarun.models.rnn_translator:main", std::move(args), max_count, dataroot);
}

// Tiny synthetic WMT16: ~900 train pairs, 300 subwords.
void make_tiny_wmt16(const std::string& root, unsigned threads = 2) {
  Wmt16GenOptions g;
  g.scale = 2e-4;
  g.vocab_lines = 300;
  g.threads = threads;
  generate_wmt16(root, g);
}

}  // namespace

TEST(Wmt16, GeneratedDataRoundTripsThroughTheReader) {
  TempDir d("roundtrip");
  make_tiny_wmt16(d.str());
  EXPECT_TRUE(wmt16_present(d.str()));
  EXPECT_NE(find_dataset("milarun.datasets:wmt16"), nullptr);

  ParallelOptions po;
  po.max_length = 1000;  // no filter
  Wmt16 w = read_wmt16_train(d.str(), po);
  EXPECT_EQ(w.vocab.size(), 304);
  EXPECT_EQ(w.train.pairs_read, std::llround(kWmt16TrainPairs * 2e-4));
  ASSERT_EQ(w.train.src.size(), w.train.pairs_read);
  double sum_en = 0, sum_de = 0, sum_ed = 0, sum_ee = 0, sum_dd = 0;
  const double n = double(w.train.src.size());
  for (int64_t i = 0; i < w.train.src.size(); ++i) {
    for (const TokenLines* side : {&w.train.src, &w.train.tgt}) {
      const int32_t* ids = side->line(i);
      ASSERT_EQ(ids[0], kBos);
      ASSERT_EQ(ids[side->length(i) - 1], kEos);
      for (int32_t t = 1; t + 1 < side->length(i); ++t)
        ASSERT_GE(ids[t], 4) << "every generated token is in the vocabulary";
    }
    double e = w.train.src.length(i) - 2, g = w.train.tgt.length(i) - 2;
    sum_en += e, sum_de += g, sum_ed += e * g, sum_ee += e * e, sum_dd += g * g;
  }
  const double mean_en = sum_en / n, mean_de = sum_de / n;
  EXPECT_GT(mean_en, 22);  // ~27 subwords as the real set
  EXPECT_LT(mean_en, 32);
  const double cov = sum_ed / n - mean_en * mean_de;
  const double corr = cov / std::sqrt((sum_ee / n - mean_en * mean_en) * (sum_dd / n - mean_de * mean_de));
  EXPECT_GT(corr, 0.8) << "German lengths follow English lengths";

  // No sentence ends inside a word.
  std::istringstream en(milabench::test::read_text(wmt16_dir(d.str()) + "/" + kWmt16TrainEn));
  for (std::string line; std::getline(en, line);)
    ASSERT_FALSE(line.size() >= 2 && line.compare(line.size() - 2, 2, "@@") == 0) << line;
  // The test set exists with the same line count on both sides.
  auto lines = [](const std::string& p) {
    auto t = milabench::test::read_text(p);
    return std::count(t.begin(), t.end(), '\n');
  };
  EXPECT_EQ(lines(wmt16_dir(d.str()) + "/" + kWmt16TestEn), lines(wmt16_dir(d.str()) + "/" + kWmt16TestDe));
}

TEST(Wmt16, GeneratorWritesTheSameFilesForAnyThreadCount) {
  TempDir a("gen1"), b("gen3");
  make_tiny_wmt16(a.str(), 1);
  make_tiny_wmt16(b.str(), 3);
  for (const char* f : {kWmt16Vocab, kWmt16TrainEn, kWmt16TrainDe})
    EXPECT_EQ(milabench::test::read_text(a.str() + "/wmt16/" + f), milabench::test::read_text(b.str() + "/wmt16/" + f))
        << f;
}

TEST(Wmt16, ReaderMapsTokensToIdsAndFiltersByLength) {
  TempDir d("map");
  const std::string dir = d.str() + "/wmt16/";
  write_text(dir + kWmt16Vocab, "hello\nwor@@\nld\n");
  write_text(dir + kWmt16TrainEn, "hello wor@@ ld\nunseen\nhello hello hello hello hello\n");
  write_text(dir + kWmt16TrainDe, "ld\nhello  ld\t\nld\n");
  ParallelOptions po;
  po.max_length = 5;  // the last pair's English side has 7 ids
  Wmt16 w = read_wmt16_train(d.str(), po);
  EXPECT_EQ(w.train.pairs_read, 3);
  ASSERT_EQ(w.train.src.size(), 2);
  EXPECT_EQ(std::vector<int32_t>(w.train.src.line(0), w.train.src.line(0) + 5),
            (std::vector<int32_t>{kBos, 4, 5, 6, kEos}));
  EXPECT_EQ(std::vector<int32_t>(w.train.src.line(1), w.train.src.line(1) + 3),
            (std::vector<int32_t>{kBos, kUnk, kEos}));
  EXPECT_EQ(std::vector<int32_t>(w.train.tgt.line(1), w.train.tgt.line(1) + 4),
            (std::vector<int32_t>{kBos, 4, 6, kEos}));
  EXPECT_EQ(w.train.lengths, (std::vector<int32_t>{5 + 3, 3 + 4}));
  po.max_size = 1;
  EXPECT_EQ(read_wmt16_train(d.str(), po).train.pairs_read, 1);
}

TEST(Wmt16, LineCountMismatchNamesTheFile) {
  TempDir d("mismatch");
  const std::string dir = d.str() + "/wmt16/";
  write_text(dir + kWmt16Vocab, "a\nb\n");
  write_text(dir + kWmt16TrainEn, "a b\nb\n");
  write_text(dir + kWmt16TrainDe, "a\nb\na\n");
  std::string msg = thrown_message([&] { read_wmt16_train(d.str(), {}); });
  EXPECT_NE(msg.find(dir + kWmt16TrainDe), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 lines"), std::string::npos) << msg;
  EXPECT_NE(msg.find("milarun dataset wmt16 -d " + d.str()), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line";
}

TEST(Wmt16, MissingVocabularyNamesTheFile) {
  TempDir d("novocab");
  std::string msg = thrown_message([&] { read_wmt16_train(d.str(), {}); });
  EXPECT_NE(msg.find(d.str() + "/wmt16/vocab.bpe.32000: missing"), std::string::npos) << msg;
  EXPECT_NE(msg.find("milarun dataset wmt16"), std::string::npos) << msg;
}

TEST(Bucketing, BatchesHoldSimilarLengthsAndCoverEachPairOnce) {
  std::mt19937 g(7);
  std::uniform_int_distribution<int32_t> len(4, 100);
  std::vector<int32_t> lengths(64 * 80 * 3 + 37);
  for (auto& l : lengths) l = len(g);
  BucketingOptions bo;
  bo.batch_size = 64;
  auto batches = bucketing_batches(lengths, bo, 1, 0);
  ASSERT_EQ(batches.size(), lengths.size() / 64);  // drop_last
  std::set<int64_t> seen;
  double mean_first = -1;
  bool sorted_order = true;
  for (const auto& b : batches) {
    ASSERT_EQ(b.size(), 64u);
    int32_t lo = 1 << 30, hi = 0;
    double mean = 0;
    for (int64_t i : b) {
      EXPECT_TRUE(seen.insert(i).second) << "index " << i << " twice";
      lo = std::min(lo, lengths[size_t(i)]), hi = std::max(hi, lengths[size_t(i)]);
      mean += lengths[size_t(i)] / 64.0;
    }
    // A shard of 80 batches spans lengths 4..100: a sorted slice of it spans ~1.2.
    EXPECT_LE(hi - lo, 3) << "batch lengths " << lo << ".." << hi;
    if (mean < mean_first) sorted_order = false;
    mean_first = mean;
  }
  EXPECT_FALSE(sorted_order) << "batches are shuffled across the epoch";
  EXPECT_NE(bucketing_batches(lengths, bo, 1, 1), batches) << "each epoch reshuffles";
  EXPECT_EQ(bucketing_batches(lengths, bo, 1, 0), batches) << "deterministic in (seed, epoch)";

  bo.bucket = false;
  double spread = 0;
  for (const auto& b : bucketing_batches(lengths, bo, 1, 0)) {
    auto [lo, hi] = std::minmax_element(b.begin(), b.end(),
                                        [&](int64_t x, int64_t y) { return lengths[size_t(x)] < lengths[size_t(y)]; });
    spread += lengths[size_t(*hi)] - lengths[size_t(*lo)];
  }
  EXPECT_GT(spread / double(batches.size()), 60) << "without bucketing, batches mix lengths";
  bo.batch_size = 0;
  EXPECT_THROW(bucketing_batches(lengths, bo, 1, 0), std::invalid_argument);
}

TEST(Gnmt, ParameterCountMatchesFormulaForSmallConfigs) {
  for (bool share : {true, false})
    for (bool pad : {false, true})
      for (int64_t layers : {2, 3, 4}) {
        GnmtOptions o;
        o.vocab_size = 101, o.hidden_size = 12, o.num_layers = layers, o.share_embedding = share;
        o.pad_classifier = pad;
        GnmtModel m(o);
        EXPECT_EQ(count_parameters(*m), gnmt_parameter_count(o)) << share << pad << layers;
      }
}

TEST(Gnmt, DefaultSizeMatchesTheOriginalModel) {
  // Closed form at 4 layers, shared embedding: 2VH + V + 90H^2 + 74H + 1.
  GnmtOptions o;  // H 1024, 4 layers, V 32317 (the real vocab.bpe.32000 + 4)
  const int64_t V = o.vocab_size, H = o.hidden_size;
  EXPECT_EQ(gnmt_parameter_count(o), 2 * V * H + V + 90 * H * H + 74 * H + 1);
  // Counted with PyTorch 1.13 on the original's layer structure written in
  // Python (bench/python/translator.py --count-only): 160 665 150, and
  // 160 671 297 with --vocab-size 32320 (the vocabulary padded to a multiple
  // of 8, as NVIDIA's later GNMT does). The small-config test above checks
  // the formula against a built model; building this one takes ~640 MB.
  EXPECT_EQ(gnmt_parameter_count(o), 160665150);
  GnmtOptions v32320 = o;
  v32320.vocab_size = 32320;
  EXPECT_EQ(gnmt_parameter_count(v32320), 160671297);
  // The original's --math fp16 pads only the classifier's rows (32 320).
  GnmtOptions padded = o;
  padded.pad_classifier = true;
  EXPECT_EQ(gnmt_parameter_count(padded), 160665150 + 3 * 1024 + 3);
}

TEST(Gnmt, PaddingInTheSourceDoesNotChangeTheOutput) {
  torch::manual_seed(3);
  GnmtOptions o;
  o.vocab_size = 50, o.hidden_size = 16, o.num_layers = 3;
  GnmtModel m(o);
  m->eval();
  // Two sources of lengths 6 and 4 (sorted descending), padded to 6.
  auto src = torch::randint(4, 50, {6, 2}, torch::kLong);
  src.index_put_({torch::indexing::Slice(4, 6), 1}, kPad);
  auto lengths = torch::tensor({6, 4}, torch::kLong);
  auto tgt = torch::randint(4, 50, {5, 2}, torch::kLong);
  auto out = m->forward(src, lengths, tgt);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{5, 2, 50}));
  auto src2 = src.clone();
  src2.index_put_({torch::indexing::Slice(4, 6), 1}, 7);  // garbage past the length
  EXPECT_TRUE(torch::allclose(out, m->forward(src2, lengths, tgt), 1e-5, 1e-6));
  auto src3 = src.clone();
  src3.index_put_({0, 1}, 9);  // a real token changes the output
  EXPECT_FALSE(torch::allclose(out, m->forward(src3, lengths, tgt), 1e-5, 1e-6));
}

TEST(Gnmt, LabelSmoothedLossMatchesDefinitionAndSkipsPadding) {
  auto logits = torch::tensor({{1.0, 2.0, 0.5, -1.0}, {0.0, 0.0, 3.0, 1.0}, {2.0, 2.0, 2.0, 2.0}});
  auto target = torch::tensor({1, 2, kPad}, torch::kLong);
  auto lp = torch::log_softmax(logits, -1);
  double expected = 0;
  for (int i = 0; i < 2; ++i)
    expected += 0.9 * -lp[i][target[i].item<int64_t>()].item<double>() + 0.1 * -lp[i].mean().item<double>();
  EXPECT_NEAR(label_smoothed_loss(logits, target, kPad, 0.1).item<double>(), expected, 1e-5);
}

TEST(Translator, ShortCpuRunWithTheProfileFlagsHasFiniteLoss) {
  TempDir d("run");
  make_tiny_wmt16(d.str());
  auto r = run_translator({"--dataset", "milarun.datasets:wmt16", "--batch-size", "8", "--target-bleu", "21.8",
                           "--workers", "8", "--hidden-size", "32", "--num-layers", "2"},
                          40, d.str());
  EXPECT_EQ(r.count, 40) << "counts --batch-size sentences per step (drop_last batches)";
  ASSERT_TRUE(r.extra["metrics"].contains("loss")) << r.extra.dump();
  EXPECT_TRUE(std::isfinite(r.extra["metrics"]["loss"].get<double>()));
  GnmtOptions o;
  o.vocab_size = 304, o.hidden_size = 32, o.num_layers = 2;
  EXPECT_EQ(r.extra["model"]["parameters"].get<int64_t>(), gnmt_parameter_count(o));
  EXPECT_EQ(r.extra["dataset"]["synthetic"], true);
  EXPECT_GT(r.extra["dataset"]["pairs_used"].get<int64_t>(), 0);
}

TEST(Translator, ModelConfigDictOverridesTheModelFlags) {
  TempDir d("cfg");
  make_tiny_wmt16(d.str());
  auto r = run_translator({"--dataset", "milarun.datasets:wmt16", "--batch-size", "4", "--model-config",
                           "{'hidden_size': 16, 'num_layers': 3, 'dropout': 0.2, 'share_embedding': False}",
                           "--optimization-config", "{'optimizer': 'SGD', 'lr': 0.1}"},
                          8, d.str());
  GnmtOptions o;
  o.vocab_size = 304, o.hidden_size = 16, o.num_layers = 3, o.share_embedding = false;
  EXPECT_EQ(r.extra["model"]["parameters"].get<int64_t>(), gnmt_parameter_count(o));
}

TEST(Translator, MissingDataNamesTheCommandThatMakesIt) {
  TempDir d("nodata");
  std::string msg = thrown_message([&] { run_translator({"--hidden-size", "8"}, 8, d.str()); });
  EXPECT_NE(msg.find("milarun dataset wmt16 -d " + d.str()), std::string::npos) << msg;
}
