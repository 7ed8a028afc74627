// wiki2 and ml20m datasets, the NCF sampler, RNNModel/NeuMF sizes, and short
// CPU runs of wlm, wlmfp16 and recom.
#include <gtest/gtest.h>
#include <sched.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "../core/test_files.hpp"
#include "data/dataset.hpp"
#include "data/manifest.hpp"
#include "data/movielens.hpp"
#include "data/ncf_sampler.hpp"
#include "data/wikitext2.hpp"
#include "measure/rate_meter.hpp"
#include "models/neumf.hpp"
#include "models/rnn_model.hpp"
#include "sys/cpus.hpp"
#include "test_support.hpp"
#include "training/session.hpp"
#include "workloads/workload.hpp"

namespace fs = std::filesystem;
using namespace milabench;
using namespace milabench::test;

namespace {

// A ratings.csv with `rows` after the header.
std::string ratings_csv(const std::vector<std::string>& rows) {
  std::string s = "userId,movieId,rating,timestamp\n";
  for (const auto& r : rows) s += r + "\n";
  return s;
}

}  // namespace

// ---- wiki2 ----

TEST(Wiki2, TokenizesAsTheExampleCorpus) {
  Dictionary d;
  std::vector<int32_t> ids;
  tokenize_text(" a  b\tc \n\n = x = \nb a", d, ids);  // no final newline: last line still ends in <eos>
  std::vector<std::string> words;
  for (int32_t i : ids) words.push_back(d.word(i));
  EXPECT_EQ(words,
            (std::vector<std::string>{"a", "b", "c", "<eos>", "<eos>", "=", "x", "=", "<eos>", "b", "a", "<eos>"}));
  EXPECT_EQ(d.size(), 6);  // a b c <eos> = x, ids in order of first appearance
  EXPECT_EQ(d.find("a"), 0);
  EXPECT_EQ(d.find("<eos>"), 3);
  EXPECT_EQ(d.find("zz"), -1);
}

TEST(Wiki2, GeneratedSetRoundTripsThroughTheReader) {
  TempDir dir("wiki2");
  DatasetOptions o;
  o.scale = 0.01;
  o.threads = 2;
  const DatasetInfo* info = find_dataset("milarun.datasets:wiki2");
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->present(dir.str()));
  info->generate(dir.str(), o);
  EXPECT_TRUE(info->present(dir.str()));
  Wiki2Corpus c = read_wiki2(dir.str());
  // Exact token counts (each <eos> counted): the real split sizes x scale.
  EXPECT_EQ(c.train.size(), size_t(std::llround(2088628 * 0.01)));
  EXPECT_EQ(c.valid.size(), size_t(std::llround(217646 * 0.01)));
  EXPECT_EQ(c.test.size(), size_t(std::llround(245569 * 0.01)));
  // Ids map back to the file's words, line by line.
  std::istringstream lines(read_text(dir.str() + "/wikitext-2/wiki.valid.tokens"));
  std::vector<std::string> expected;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream ws(line);
    for (std::string w; ws >> w;) expected.push_back(w);
    expected.push_back("<eos>");
  }
  std::vector<std::string> got;
  for (int32_t id : c.valid) got.push_back(c.dictionary.word(id));
  EXPECT_EQ(got, expected);
  // Zipf-like: "the" is the most frequent word, a few percent of the tokens.
  std::vector<int64_t> freq(size_t(c.dictionary.size()));
  for (int32_t id : c.train) ++freq[size_t(id)];
  int32_t top = int32_t(std::max_element(freq.begin(), freq.end()) - freq.begin());
  EXPECT_EQ(c.dictionary.word(top), "the");
  EXPECT_GT(freq[size_t(top)], int64_t(c.train.size()) / 40);
  EXPECT_EQ(dataset_provenance(dir.str(), "wiki2")["synthetic"], true);
  // The original downloads wikitext-2: generated text stands in for it.
  EXPECT_EQ(dataset_provenance(dir.str(), "wiki2")["stand_in"], "generated_data");
}

TEST(Wiki2, FullScaleHasTheRealVocabularyAndIgnoresThreadCount) {
  TempDir a("wiki2a"), b("wiki2b");
  DatasetOptions o;
  o.threads = 2;
  generate_wiki2(a.str(), o);
  Wiki2Corpus c = read_wiki2(a.str());
  EXPECT_EQ(c.dictionary.size(), kWiki2Vocabulary);
  EXPECT_EQ(c.train.size(), 2088628u);
  o.threads = 3;
  generate_wiki2(b.str(), o);
  EXPECT_EQ(read_text(a.str() + "/wikitext-2/wiki.test.tokens"), read_text(b.str() + "/wikitext-2/wiki.test.tokens"));
}

TEST(Wiki2, MissingOrEmptyFileNamesItAndTheCommand) {
  TempDir dir("wiki2err");
  std::string e = thrown_message([&] { read_wiki2(dir.str()); });
  EXPECT_NE(e.find(dir.str() + "/wikitext-2/wiki.train.tokens"), std::string::npos) << e;
  EXPECT_NE(e.find("milarun dataset wiki2 -d " + dir.str()), std::string::npos) << e;
  write_text(dir.str() + "/wikitext-2/wiki.train.tokens", "a b\n");
  write_text(dir.str() + "/wikitext-2/wiki.valid.tokens", "");
  write_text(dir.str() + "/wikitext-2/wiki.test.tokens", "c\n");
  e = thrown_message([&] { read_wiki2(dir.str()); });
  EXPECT_NE(e.find("wiki.valid.tokens: empty"), std::string::npos) << e;
}

// ---- ml20m ----

TEST(Ml20m, MalformedRowErrorNamesFileAndLine) {
  TempDir dir("mlbad");
  const std::string csv = dir.str() + "/ratings.csv";
  write_text(csv, ratings_csv({"1,2,3.5,1112486027", "1,29,3.5,1112484676", "", "1,32,high,1112484819"}));
  std::string e = thrown_message([&] { convert_ml20m_csv(csv); });
  EXPECT_NE(e.find(csv + ":5: rating"), std::string::npos) << e;  // header is line 1, blank line 4 skipped
  write_text(csv, ratings_csv({"1,2,3.5,1112486027", "1,2,3.5"}));
  e = thrown_message([&] { convert_ml20m_csv(csv); });
  EXPECT_NE(e.find(csv + ":3: expected 4"), std::string::npos) << e;
  write_text(csv, "user,movie,rating,time\n1,2,3.5,1\n");
  e = thrown_message([&] { convert_ml20m_csv(csv); });
  EXPECT_NE(e.find(csv + ":1: header"), std::string::npos) << e;
}

TEST(Ml20m, ConversionFollowsTheOriginal) {
  TempDir dir("mlconv");
  std::vector<std::string> rows;
  for (int k = 0; k < 19; ++k) rows.push_back("5," + std::to_string(100 + k) + ",4.0," + std::to_string(1000 + k));
  // User 9: 21 rows, one repeating movie 300 later in time; timestamps descending.
  for (int k = 0; k < 20; ++k) rows.push_back("9," + std::to_string(300 + k) + ",3.0," + std::to_string(2000 - k));
  rows.push_back("9,300,5.0,3000");
  const std::string csv = dir.str() + "/ratings.csv";
  write_text(csv, ratings_csv(rows));
  Ml20m d = convert_ml20m_csv(csv, 2);
  EXPECT_EQ(d.users, 1);  // user 5 has 19 ratings (< 20): dropped
  EXPECT_EQ(d.items, 20);
  ASSERT_EQ(d.pairs(), 20);  // the repeat of (9, 300) dropped, its first (earliest) rating kept
  // Items numbered by first appearance (movie 300 -> 0 ... 319 -> 19), then ordered by time.
  for (int k = 0; k < 20; ++k) EXPECT_EQ(d.item[size_t(k)], 19 - k);
  EXPECT_EQ(d.user_begin, (std::vector<int64_t>{0, 20}));
}

TEST(Ml20m, BinaryCacheRoundTripsAndRejectsDamage) {
  TempDir dir("mlcache");
  Ml20m d;
  d.users = 3, d.items = 5;
  d.item = {4, 0, 2, 1, 1, 3};
  d.user_begin = {0, 3, 3, 6};
  const std::string path = dir.str() + "/ratings.bin";
  write_ml20m_cache(path, d);
  EXPECT_EQ(fs::file_size(path), 40u + 6 * 8);
  Ml20m r = read_ml20m_cache(path);
  EXPECT_EQ(r.users, 3);
  EXPECT_EQ(r.items, 5);
  EXPECT_EQ(r.item, d.item);
  EXPECT_EQ(r.user_begin, d.user_begin);
  fs::resize_file(path, 40 + 5 * 8);
  std::string e = thrown_message([&] { read_ml20m_cache(path); });
  EXPECT_NE(e.find(path + ": truncated"), std::string::npos) << e;
}

// Header fields that would size an allocation beyond the file (pairs * 8
// wrapping 64 bits to the real length; 2^31 - 1 users for one record) are
// refused before anything is allocated, naming the file.
TEST(Ml20m, CacheHeaderCannotSizeAnAllocationBeyondTheFile) {
  TempDir dir("mlhuge");
  const std::string path = dir.str() + "/ratings.bin";
  auto cache = [](int64_t users, int64_t items, int64_t pairs, int records) {
    std::string b = "ML20MBIN";
    const uint32_t version = 1, zero = 0;
    b.append(reinterpret_cast<const char*>(&version), 4).append(reinterpret_cast<const char*>(&zero), 4);
    for (int64_t v : {users, items, pairs}) b.append(reinterpret_cast<const char*>(&v), 8);
    return b + std::string(size_t(records) * 8, '\0');
  };
  for (const std::string& bytes : {cache(1, 1, (int64_t(1) << 61) + 1, 1), cache(INT32_MAX, 1, 1, 1)}) {
    write_text(path, bytes);
    const std::string e = thrown_message([&] { read_ml20m_cache(path); });
    EXPECT_NE(e.find(path + ": truncated or inconsistent header"), std::string::npos) << e;
  }
  write_text(path, cache(1, 1, 1, 1));
  EXPECT_EQ(read_ml20m_cache(path).pairs(), 1);
}

TEST(Ml20m, GeneratedSetConvertsAndTheCacheFollowsTheCsv) {
  TempDir dir("mlgen");
  DatasetOptions o;
  o.scale = 0.002;  // 277 users, 100 movies
  o.threads = 2;
  const DatasetInfo* info = find_dataset("milarun.datasets:ml20m");
  ASSERT_NE(info, nullptr);
  info->generate(dir.str(), o);
  ASSERT_TRUE(fs::exists(ml20m_cache(dir.str())));
  Ml20m d = load_ml20m(dir.str());
  EXPECT_EQ(d.users, 277);  // every generated user has >= 20 ratings
  EXPECT_LE(d.items, 100);
  EXPECT_GT(d.items, 90);
  EXPECT_GT(d.pairs(), 277 * 20);
  EXPECT_LT(d.pairs(), 277 * 50);  // capped at half the movies per user
  // A newer CSV is converted again and the cache rewritten.
  write_text(ml20m_csv(dir.str()), ratings_csv(std::vector<std::string>(25, "1,7,4.0,100")));
  fs::last_write_time(ml20m_csv(dir.str()), fs::last_write_time(ml20m_cache(dir.str())) + std::chrono::seconds(5));
  Ml20m fresh = load_ml20m(dir.str());
  EXPECT_EQ(fresh.users, 1);
  EXPECT_EQ(fresh.pairs(), 1);
  EXPECT_EQ(read_ml20m_cache(ml20m_cache(dir.str())).pairs(), 1);
  // Neither file: the error names the CSV and the command.
  TempDir empty("mlnone");
  std::string e = thrown_message([&] { load_ml20m(empty.str()); });
  EXPECT_NE(e.find("ml-20m/ratings.csv"), std::string::npos) << e;
  EXPECT_NE(e.find("milarun dataset ml20m"), std::string::npos) << e;
}

// ---- NCF sampling ----

// recom's loader, reached at run time, in a suite of one copy per CPU
// partition: with no thread count it splits only over its own partition.
TEST(Ml20m, PinnedLoaderParsesOnlyOverItsPartitionsCpus) {
  const size_t big = size_t(64) << 20;  // 64 parts' worth of body
  EXPECT_EQ(ml20m_parse_parts(big, 3), 3u);
  EXPECT_EQ(ml20m_parse_parts(100, 8), 1u);  // at most one part per MiB
  const std::vector<int> all = allowed_cpus();
  ASSERT_FALSE(all.empty());
  cpu_set_t saved, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  CPU_ZERO(&one);
  CPU_SET(all.front(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const size_t pinned = ml20m_parse_parts(big, 0);
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
  EXPECT_EQ(pinned, 1u);
  EXPECT_EQ(ml20m_parse_parts(big, 0), std::min<size_t>(64, static_cast<size_t>(usable_cpu_count())));
}

TEST(NcfSampler, FeistelIsABijection) {
  for (uint64_t n : {1ull, 2ull, 5ull, 1000ull, 4097ull}) {
    FeistelPermutation p(n, 42);
    std::vector<char> hit(n, 0);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t v = p(i);
      ASSERT_LT(v, n);
      ASSERT_FALSE(hit[v]) << "n=" << n;
      hit[v] = 1;
    }
  }
  FeistelPermutation a(1000, 1), b(1000, 2);
  int same = 0;
  for (uint64_t i = 0; i < 1000; ++i) same += a(i) == b(i);
  EXPECT_LT(same, 20);  // different keys, different orders
}

TEST(NcfSampler, EpochHasEachPositiveOnceAndOnlyUnratedNegatives) {
  Ml20m d;  // user 0 rated items 0..5 (5 last), user 1 rated 7, 2, 9 (9 last)
  d.users = 2, d.items = 12;
  d.item = {0, 1, 2, 3, 4, 5, 7, 2, 9};
  d.user_begin = {0, 6, 9};
  NcfTrainSet set(d, 4);
  EXPECT_EQ(set.positives(), 7);  // the last of each user held out
  EXPECT_EQ(set.test_item(0), 5);
  EXPECT_EQ(set.test_item(1), 9);
  EXPECT_TRUE(set.rated(1, 7));
  EXPECT_FALSE(set.rated(1, 9));
  NcfBatch b;
  set.fill(3, 0, 0, set.samples_per_epoch(), b);
  std::multiset<std::pair<int64_t, int64_t>> pos;
  int64_t negatives = 0;
  for (size_t k = 0; k < b.size(); ++k) {
    if (b.label[k] == 1.f) {
      pos.insert({b.user[k], b.item[k]});
    } else {
      ++negatives;
      EXPECT_FALSE(set.rated(b.user[k], int32_t(b.item[k])));
    }
  }
  EXPECT_EQ(pos, (std::multiset<std::pair<int64_t, int64_t>>{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 7}, {1, 2}}));
  EXPECT_EQ(negatives, 28);
}

TEST(NcfSampler, LoaderIsDeterministicWhateverTheWorkers) {
  Ml20m d;
  d.users = 3, d.items = 50;
  for (int u = 0; u < 3; ++u)
    for (int k = 0; k < 20; ++k) d.item.push_back((u * 7 + k * 3) % 50);
  d.user_begin = {0, 20, 40, 60};
  NcfTrainSet set(d, 4);  // 57 positives, 285 samples an epoch
  NcfLoader inline_loader(set, 64, 0, 9), threaded(set, 64, 3, 9);
  std::vector<size_t> sizes;
  for (int k = 0; k < 10; ++k) {  // two epochs and a bit: 5 batches an epoch, the last of 29
    NcfBatch x = inline_loader.next(), y = threaded.next();
    EXPECT_EQ(x.user, y.user);
    EXPECT_EQ(x.item, y.item);
    EXPECT_EQ(x.label, y.label);
    sizes.push_back(x.size());
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{64, 64, 64, 64, 29, 64, 64, 64, 64, 29}));
}

// ---- models at the profiles' sizes (counts checked with PyTorch 1.13) ----

TEST(RNNModel, ParameterCountsMatchPyTorch) {
  RNNModelOptions o;  // the profiles' GRU 656/656, 2 layers
  o.rnn_type = "GRU", o.ninp = o.nhid = 656, o.dropout = 0.5;
  o.ntoken = kWiki2Vocabulary;
  EXPECT_EQ(rnn_model_parameter_count(o), 48865918);  // python: sum(p.numel()) of the example's RNNModel
  RNNModel gru(o);
  EXPECT_EQ(count_parameters(*gru), 48865918);
  o.tied = true;
  RNNModel tied(o);
  EXPECT_EQ(count_parameters(*tied), 27035550);  // the shared weight counted once
  EXPECT_EQ(rnn_model_parameter_count(o), 27035550);
  RNNModelOptions small;
  small.rnn_type = "RNN_TANH", small.ntoken = 1000, small.ninp = 100, small.nhid = 50, small.nlayers = 3;
  RNNModel rnn(small);
  EXPECT_EQ(count_parameters(*rnn), 168800);
  small.rnn_type = "LSTM", small.ninp = small.nhid = 200, small.nlayers = 2, small.ntoken = 33278;
  EXPECT_EQ(rnn_model_parameter_count(small), 13987678);
  auto h = RNNModel(small)->init_hidden(3, torch::TensorOptions());
  ASSERT_EQ(h.size(), 2u);  // (h, c)
  EXPECT_EQ(h[0].sizes(), (std::vector<int64_t>{2, 3, 200}));
  small.rnn_type = "GRU2";
  EXPECT_THROW(RNNModel{small}, std::invalid_argument);
  o.nhid = 600;
  EXPECT_THROW(RNNModel{o}, std::invalid_argument);  // tied needs nhid == emsize
}

TEST(NeuMF, ParameterCountMatchesPyTorchAndShapes) {
  NeuMFOptions o;
  o.users = kMl20mUsers, o.items = kMl20mItems;  // -f 64 --layers 256,256,128,64
  EXPECT_EQ(neumf_parameter_count(o), 31832577);
  NeuMF m(o);
  EXPECT_EQ(count_parameters(*m), 31832577);
  auto out = m->forward(torch::tensor({0, 138492}), torch::tensor({26743, 5}));
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 1}));
  o.layers = {255, 64};
  EXPECT_THROW(NeuMF{o}, std::invalid_argument);
}

// ---- short CPU runs ----

class WlmRuns : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("wlmrun");
    DatasetOptions o;
    o.scale = 0.002;
    generate_wiki2(dir_->str(), o);
  }
  static void TearDownTestSuite() { delete dir_; }
  static TempDir* dir_;
};
TempDir* WlmRuns::dir_ = nullptr;

TEST_F(WlmRuns, WlmTrainsWithFiniteLossAndCountsSequences) {
  auto r = run_workload("milarun.models.wlm:main",
                        {"--dataset", "milarun.datasets:wiki2", "--batch-size", "4", "--emsize", "32", "--nhid", "32",
                         "--dropout", "0.5", "--model", "GRU", "--bptt", "8"},
                        4 * 30, dir_->str());
  EXPECT_EQ(r.count, 4 * 30);  // 30 steps of --batch-size sequences
  expect_finite_loss(r);
  EXPECT_EQ(r.extra["metrics"]["precision"], "float32");
  RNNModelOptions o;
  o.rnn_type = "GRU", o.ntoken = r.extra["metrics"]["vocabulary"].get<int64_t>(), o.ninp = o.nhid = 32;
  EXPECT_EQ(r.extra["model"]["parameters"].get<int64_t>(), rnn_model_parameter_count(o));
}

TEST_F(WlmRuns, ShortLastChunkCountsTheBatchAndEpochsEndWithAnUntimedEvaluation) {
  // bptt 1000 over ~1000 rows per column: an epoch is a full chunk then a
  // short one; both count --batch-size, and the validation pass runs between
  // epochs (its loss is recorded), as the original's train()/evaluate().
  auto r = run_workload("wlm", {"--batch-size", "4", "--emsize", "16", "--nhid", "16", "--bptt", "1000"}, 4 * 3,
                        dir_->str());
  EXPECT_EQ(r.count, 4 * 3);
  ASSERT_TRUE(r.extra["metrics"].contains("val_loss")) << r.extra.dump();
  EXPECT_TRUE(std::isfinite(r.extra["metrics"]["val_loss"].get<double>()));
  expect_finite_loss(r);
}

TEST_F(WlmRuns, WlmFp16RunsInBfloat16OnCpu) {
  auto r =
      run_workload("wlmfp16", {"--batch-size", "2", "--bptt", "8", "--emsize", "16", "--nhid", "16", "--model", "LSTM"},
                   2 * 6, dir_->str());
  EXPECT_EQ(r.count, 2 * 6);
  expect_finite_loss(r);
  EXPECT_EQ(r.extra["metrics"]["precision"], "bfloat16");
}

// --clip 0 zeroes every gradient: the weights never move, so every validation
// after the first fails to improve. wlm (main.py) anneals the lr it steps with
// each time; wlmfp16 (main_fp16_optimizer.py) annealed a local its SGD never
// read, so its steps keep the first lr.
TEST_F(WlmRuns, WlmAnnealsItsLrWhileWlmfp16KeepsTheLrItsOptimizerWasBuiltWith) {
  const std::vector<std::string> args = {"--batch-size", "4",    "--emsize", "16", "--nhid", "16",
                                         "--bptt",       "1000", "--clip",   "0",  "--lr",   "20"};
  auto wlm = run_workload("wlm", args, 4 * 2 * 4, dir_->str());  // 4 epochs of 2 chunks: 3 validations
  auto fp16 = run_workload("wlmfp16", args, 4 * 2 * 4, dir_->str());
  for (const auto* r : {&wlm, &fp16}) {
    ASSERT_TRUE(r->extra["metrics"].contains("epochs_not_improved")) << r->extra.dump();
    EXPECT_EQ(r->extra["metrics"]["epochs_not_improved"], 2);
  }
  EXPECT_EQ(wlm.extra["metrics"]["lr"].get<double>(), 20.0 / 16);
  EXPECT_EQ(fp16.extra["metrics"]["lr"].get<double>(), 20.0);
}

TEST_F(WlmRuns, WlmAcceptsTheProfileFlags) {  // standard.json's wlm arguments, one short step at full width
  auto r = run_workload("wlm",
                        {"--dataset", "milarun.datasets:wiki2", "--batch-size", "64", "--emsize", "656", "--nhid",
                         "656", "--dropout", "0.5", "--model", "GRU", "--bptt", "3"},
                        64, dir_->str());
  EXPECT_EQ(r.count, 64);
  expect_finite_loss(r);
  EXPECT_THROW(run_workload("wlm", {"--model", "TRANSFORMER"}, 64, dir_->str()), std::invalid_argument);
}

TEST(Recom, TrainsWithFiniteLossOnTheProfileFlags) {
  TempDir dir("recomrun");
  DatasetOptions o;
  o.scale = 0.002;
  generate_ml20m(dir.str(), o);
  auto r = run_workload("milarun.models.recommendation:main",
                        {"--dataset", "milarun.datasets:ml20m", "--layers", "256,256,128,64", "-f", "64", "-l",
                         "0.0005", "--batch-size", "256", "--workers", "2"},
                        256 * 12, dir.str());
  EXPECT_EQ(r.count, 256 * 12);  // samples, negatives included
  expect_finite_loss(r);
  NeuMFOptions m;
  m.users = r.extra["metrics"]["users"].get<int64_t>(), m.items = r.extra["metrics"]["items"].get<int64_t>();
  EXPECT_EQ(m.users, 277);
  EXPECT_EQ(r.extra["model"]["parameters"].get<int64_t>(), neumf_parameter_count(m));
  EXPECT_EQ(r.extra["dataset"]["synthetic"], true);
}

TEST(Recom, AnEpochsShortLastBatchCountsTheBatchSize) {
  // As the original's it.set_count(batch_size): one batch larger than the
  // whole epoch is short, and still counts --batch-size.
  TempDir dir("recomshort");
  DatasetOptions o;
  o.scale = 0.002;
  generate_ml20m(dir.str(), o);
  auto r = run_workload("recom", {"--dataset", "milarun.datasets:ml20m", "-f", "8", "--layers", "16,8"}, 1, dir.str());
  const int64_t epoch = 5 * r.extra["metrics"]["train_positives"].get<int64_t>();
  const int64_t big = epoch + 1000;
  auto one = run_workload("recom",
                          {"--dataset", "milarun.datasets:ml20m", "-f", "8", "--layers", "16,8", "--batch-size",
                           std::to_string(big), "--workers", "0"},
                          1, dir.str());
  EXPECT_EQ(one.count, big);
}
