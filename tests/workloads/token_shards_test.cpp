// llm.c token shards: the reader/writer round trip in both variants, each
// refusal as one line naming the file, and the generator's Markov process.
#include "data/token_shards.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>

#include "data/dataset.hpp"
#include "training/token_loader.hpp"
#include "test_support.hpp"

using namespace milabench;
using milabench::test::TempDir;

namespace {

// The message of what `f` throws as a std::runtime_error ("" when nothing).
template <class F>
std::string refusal(F f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

void write_raw(const std::string& path, std::vector<int32_t> header, const std::vector<uint16_t>& tokens) {
  header.resize(256, 0);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(header.data()), 1024);
  out.write(reinterpret_cast<const char*>(tokens.data()), std::streamsize(tokens.size() * 2));
}

}  // namespace

TEST(TokenShards, RoundTripInBothLlmcVariants) {
  TempDir dir("shards_rt");
  const std::vector<uint32_t> small = {0, 1, 50256, 7, 65535};
  write_token_shard(dir.str() + "/a.bin", small, ShardFormat::Gpt2);
  EXPECT_EQ(read_token_shard(dir.str() + "/a.bin", 65536), small);
  const std::vector<uint32_t> wide = {0, 128000, 128255, 3};
  write_token_shard(dir.str() + "/b.bin", wide, ShardFormat::Llama3);
  EXPECT_EQ(read_token_shard(dir.str() + "/b.bin", 128256), wide);
  // The on-disk header is llm.c's: magic, version, count as int32, 1024 bytes, then uint16 tokens.
  std::ifstream in(dir.str() + "/a.bin", std::ios::binary);
  int32_t h[3];
  in.read(reinterpret_cast<char*>(h), sizeof h);
  EXPECT_EQ(h[0], 20240520);
  EXPECT_EQ(h[1], 1);
  EXPECT_EQ(h[2], 5);
  EXPECT_EQ(std::filesystem::file_size(dir.str() + "/a.bin"), 1024u + 5 * 2);
  EXPECT_EQ(std::filesystem::file_size(dir.str() + "/b.bin"), 1024u + 4 * 4);
}

TEST(TokenShards, EachRefusalIsOneLineNamingTheFileAndTheProblem) {
  TempDir dir("shards_bad");
  const std::string p = dir.str() + "/s.bin";
  struct Case {
    std::vector<int32_t> header;
    std::vector<uint16_t> tokens;
    int64_t vocab;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {{20240521, 1, 2}, {1, 2}, 256, "bad magic 20240521"},
      {{20240520, 7, 2}, {1, 2}, 256, "version 7 (expected 1)"},
      {{20240520, 1, 3}, {1, 2}, 256, "header says 3 tokens"},       // truncated
      {{20240520, 1, 1}, {1, 2}, 256, "header says 1 tokens"},       // trailing bytes
      {{20240520, 1, 2}, {1, 256}, 256, "token 256 at position 1"},  // out of range
  };
  for (const auto& c : cases) {
    write_raw(p, c.header, c.tokens);
    const std::string why = refusal([&] { read_token_shard(p, c.vocab); });
    EXPECT_EQ(why.rfind(p + ": ", 0), 0u) << why;
    EXPECT_NE(why.find(c.problem), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
  std::ofstream(p, std::ios::trunc) << "short";
  EXPECT_NE(refusal([&] { read_token_shard(p, 256); }).find(p + ": shorter than llm.c's 1024-byte header"),
            std::string::npos);
  EXPECT_NE(refusal([&] { read_token_shard(dir.str() + "/none.bin", 256); }).find("none.bin: cannot open"),
            std::string::npos);
}

TEST(TokenShards, GeneratorWritesValThenTrainShardsOfASparseLearnableChain) {
  TempDir dir("shards_gen");
  TokenGenOptions o;
  o.vocab = 256;
  o.val_tokens = 4096;
  o.train_shards = 2;
  o.train_tokens_per_shard = 200000;
  o.prefix = "tiny";
  generate_token_shards(dir.str(), o);
  const ShardFiles f = list_token_shards(dir.str());
  ASSERT_EQ(f.val.size(), 1u);
  ASSERT_EQ(f.train.size(), 2u);
  EXPECT_NE(f.val[0].find("tiny_val_000000.bin"), std::string::npos);
  EXPECT_NE(f.train[1].find("tiny_train_000002.bin"), std::string::npos);
  const auto t = read_token_shard(f.train[0], 256);
  ASSERT_EQ(t.size(), 200000u);
  // Empirical conditional entropy of the next token: far below ln(256) = 5.55
  // (learnable), near the process's ~1.65 nats; EOT (255) ends documents.
  std::map<uint32_t, std::map<uint32_t, double>> pairs;
  int64_t eots = 0;
  for (size_t i = 0; i + 1 < t.size(); ++i) pairs[t[i]][t[i + 1]] += 1, eots += t[i] == 255;
  double h = 0;
  for (auto& [a, row] : pairs) {
    double n = 0;
    for (auto& [b, c] : row) n += c;
    for (auto& [b, c] : row) h -= c / double(t.size() - 1) * std::log(c / n);
  }
  EXPECT_LT(h, 2.2);
  EXPECT_GT(h, 1.2);
  EXPECT_GT(eots, 200000 / 1024);
  EXPECT_LT(eots, 200000 / 256);
  // Deterministic: the same options give the same bytes.
  TempDir again("shards_gen2");
  generate_token_shards(again.str(), o);
  EXPECT_EQ(read_token_shard(list_token_shards(again.str()).train[0], 256), t);
}

TEST(TokenShards, TheTinyDatasetIsInTheTableAndMadeWhenAbsent) {
  TempDir root("shards_ds");
  const DatasetInfo* d = find_dataset("milarun.datasets:llmc_tiny256");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->present(root.str()));
  DatasetOptions o;
  o.scale = 0.02;  // 80 k train tokens
  d->generate(root.str(), o);
  EXPECT_TRUE(d->present(root.str()));
  const ShardFiles f = list_token_shards(root.str() + "/llmc_tiny256");
  EXPECT_EQ(read_token_shard(f.train[0], 256).size(), 80000u);
  ASSERT_NE(find_dataset("llmc_gpt2"), nullptr);
}

// llm.c's DistributedDataLoader: rank r of W starts at B*T*r and advances by
// B*T*W, so the ranks read disjoint batches; a shard too short for one step
// of every rank is refused with its name.
TEST(TokenLoader, EachRankReadsItsOwnBatchesAndWrapsWithTheOthers) {
  TempDir dir("loader_ranks");
  std::vector<uint32_t> tokens(40);
  for (uint32_t i = 0; i < tokens.size(); ++i) tokens[i] = i;
  write_token_shard(dir.str() + "/t_val_000000.bin", {0, 1}, ShardFormat::Gpt2);
  write_token_shard(dir.str() + "/t_train_000001.bin", tokens, ShardFormat::Gpt2);
  auto first = [](const torch::Tensor& t) { return t.flatten()[0].item<int64_t>(); };
  const torch::Device cpu(torch::kCPU);
  TokenLoader r0(dir.str(), 256, 2, 3, cpu, "make it", 0, 2), r1(dir.str(), 256, 2, 3, cpu, "make it", 1, 2);
  auto [x0, y0] = r0.next();
  auto [x1, y1] = r1.next();
  EXPECT_TRUE(torch::equal(x0, torch::arange(0, 6).view({2, 3})));
  EXPECT_TRUE(torch::equal(y0, torch::arange(1, 7).view({2, 3})));
  EXPECT_TRUE(torch::equal(x1, torch::arange(6, 12).view({2, 3})));
  EXPECT_TRUE(torch::equal(y1, torch::arange(7, 13).view({2, 3})));
  EXPECT_EQ(first(r0.next().first), 12);  // advanced by B*T*W
  EXPECT_EQ(first(r1.next().first), 18);
  // Rank 1 is now at 30: the next step of every rank (12 + 1 tokens) would run
  // past the shard, so it starts it again at its offset.
  EXPECT_EQ(first(r1.next().first), 6);
  EXPECT_EQ(r1.wraps(), 1);
  // One rank alone reads from 0 by B*T, as before.
  TokenLoader alone(dir.str(), 256, 2, 3, cpu, "make it");
  alone.next();
  EXPECT_EQ(first(alone.next().first), 6);
  // 40 tokens cannot hold one step of 7 ranks (7 x 6 + 1).
  std::string why = refusal([&] { TokenLoader(dir.str(), 256, 2, 3, cpu, "make it", 0, 7); });
  EXPECT_NE(why.find("t_train_000001.bin: 40 tokens, fewer than one step (43 over 7 ranks)"), std::string::npos)
      << why;
}
