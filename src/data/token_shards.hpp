// Token shards in llm.c's format (dev/data/data_common.py write_datafile and
// llmc/dataloader.h): a header of 256 little-endian int32 (magic, version,
// token count, the rest zero) followed by the tokens. GPT-2's variant: magic
// 20240520, version 1, uint16 tokens; Llama-3's: magic 20240801, version 7,
// uint32 tokens. A dataset folder holds NAME_val_000000.bin (shard 0, the
// validation split) and NAME_train_00000K.bin (K >= 1), as llm.c's fineweb.py
// writes them. No torch here.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/dataset.hpp"

namespace milabench {

enum class ShardFormat { Gpt2, Llama3 };

inline constexpr int32_t kShardMagicGpt2 = 20240520, kShardVersionGpt2 = 1;
inline constexpr int32_t kShardMagicLlama3 = 20240801, kShardVersionLlama3 = 7;
inline constexpr int64_t kShardHeaderInts = 256;

// Reads a whole shard. Checks the magic and version (either variant), that
// the file holds exactly the header's token count, and that every token is
// < `vocab`. Throws DataFormatError (a std::runtime_error), one line "PATH:
// PROBLEM", on any failure.
std::vector<uint32_t> read_token_shard(const std::string& path, int64_t vocab);

// Writes `tokens` in `format` (each token must fit its width) to `path`
// atomically (temp + rename). Throws std::runtime_error naming the path.
void write_token_shard(const std::string& path, const std::vector<uint32_t>& tokens, ShardFormat format);

// The shards of a folder, sorted by name: files ending in ".bin" whose name
// contains "_val_" or "_train_". Empty when the folder is missing.
struct ShardFiles {
  std::vector<std::string> val, train;
};
ShardFiles list_token_shards(const std::string& dir);

// The generator: a seeded, sparse first-order Markov chain over tokens
// [0, vocab-1) (vocab-1 is EOT): each token has kMarkovSuccessors likely
// successors (probabilities 0.5, 0.25, 0.125, 0.0625) and, with the
// remaining 1/16, a uniform draw; a document ends with EOT with probability
// 1/512 per token (mean length 512) and the next one starts uniformly. Its
// entropy rate is about 1.9 nats/token, so a model's loss can fall from
// ln(vocab) towards it. Deterministic for given options.
struct TokenGenOptions {
  int64_t vocab = 50257;
  int64_t val_tokens = 1 << 20;
  int64_t train_shards = 3;
  int64_t train_tokens_per_shard = 100'000'000;
  uint64_t seed = 20240520;
  ShardFormat format = ShardFormat::Gpt2;
  std::string prefix = "fineweb";  // file names: PREFIX_{val,train}_NNNNNN.bin
};
inline constexpr int kMarkovSuccessors = 4;
void generate_token_shards(const std::string& dir, const TokenGenOptions& opts);

// The datasets of the table: "llmc_gpt2" (GPT-2 vocabulary, 50257, under
// DATAROOT/llmc_gpt2), "llmc_llama3" (Llama 3's vocabulary, 128256, uint32
// shards, under DATAROOT/llmc_llama3) and "llmc_tiny256" (vocabulary 256,
// the tiny configs, under DATAROOT/llmc_tiny256).
struct TokenDataset {
  const char* name;
  int64_t vocab;
  TokenGenOptions gen;  // at scale 1
};
const TokenDataset& token_dataset(const std::string& name);
std::string token_dataset_dir(const std::string& dataroot, const std::string& name);
bool token_dataset_present(const std::string& dataroot, const std::string& name);
// Generates the dataset at `scale` (train tokens x scale, at least 64 Ki
// tokens per shard) and records the MANIFEST.
void generate_token_dataset(const std::string& dataroot, const std::string& name, const DatasetOptions& o);

}  // namespace milabench
