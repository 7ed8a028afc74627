#include "data/token_shards.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "data/format_error.hpp"
#include "data/manifest.hpp"
#include "sys/splitmix.hpp"

namespace milabench {
namespace fs = std::filesystem;

namespace {

struct Variant {
  int32_t magic, version;
  int64_t width;  // bytes per token
};
constexpr Variant kVariants[] = {{kShardMagicGpt2, kShardVersionGpt2, 2}, {kShardMagicLlama3, kShardVersionLlama3, 4}};

const Variant& variant_of(ShardFormat f) { return kVariants[f == ShardFormat::Gpt2 ? 0 : 1]; }

// The generator's only source of randomness: splitmix64 of a counter (fixed
// across platforms and standard libraries, unlike std:: distributions).
struct CounterRng {
  uint64_t state;
  uint64_t next() { return splitmix64(state++); }
};

// One shard of the chain. `seed` makes each shard an independent stretch.
std::vector<uint32_t> markov_tokens(int64_t n, int64_t vocab, uint64_t chain_seed, uint64_t shard_seed) {
  const uint32_t eot = uint32_t(vocab - 1), words = uint32_t(vocab - 1);
  std::vector<uint32_t> out(static_cast<size_t>(n));
  CounterRng rng{splitmix64(shard_seed)};
  uint32_t cur = eot;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng.next();
    uint32_t next;
    if (cur != eot && (r & 511) == 0) {
      next = eot;  // document ends: 1/512 per token
    } else if (cur == eot) {
      next = uint32_t((r >> 9) % words);  // a document starts anywhere
    } else {
      const uint32_t pick = uint32_t((r >> 9) & 15);  // 8/16, 4/16, 2/16, 1/16: successor k; 1/16: uniform
      const int k = pick < 8 ? 0 : pick < 12 ? 1 : pick < 14 ? 2 : pick < 15 ? 3 : -1;
      next = k < 0 ? uint32_t((r >> 13) % words)
                   : uint32_t(splitmix64(chain_seed ^ (uint64_t(cur) * kMarkovSuccessors + uint64_t(k))) % words);
    }
    out[size_t(i)] = cur = next;
  }
  return out;
}

std::string shard_name(const std::string& prefix, const char* split, int64_t k) {
  char num[16];
  std::snprintf(num, sizeof num, "%06lld", static_cast<long long>(k));
  return prefix + "_" + split + "_" + num + ".bin";
}

}  // namespace

std::vector<uint32_t> read_token_shard(const std::string& path, int64_t vocab) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataFormatError(path, "cannot open the token shard");
  int32_t header[kShardHeaderInts] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header))
    throw DataFormatError(path, "shorter than llm.c's 1024-byte header");
  const Variant* v = nullptr;
  for (const auto& c : kVariants)
    if (c.magic == header[0]) v = &c;
  if (!v)
    throw DataFormatError(path, "bad magic " + std::to_string(header[0]) + " (llm.c shards have 20240520 or 20240801)");
  if (header[1] != v->version)
    throw DataFormatError(path, "magic " + std::to_string(v->magic) + " with version " + std::to_string(header[1]) +
                                    " (expected " + std::to_string(v->version) + ")");
  const int64_t count = header[2];
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  const int64_t expected = int64_t(sizeof header) + count * v->width;
  if (count < 0 || ec || int64_t(size) != expected)
    throw DataFormatError(path, "header says " + std::to_string(count) + " tokens (" + std::to_string(expected) +
                                    " bytes) but the file has " + std::to_string(ec ? 0 : size) + " bytes");
  std::vector<uint32_t> tokens(static_cast<size_t>(count));
  if (v->width == 2) {
    std::vector<uint16_t> raw(static_cast<size_t>(count));
    in.read(reinterpret_cast<char*>(raw.data()), std::streamsize(count * 2));
    std::copy(raw.begin(), raw.end(), tokens.begin());
  } else {
    in.read(reinterpret_cast<char*>(tokens.data()), std::streamsize(count * 4));
  }
  if (!in) throw DataFormatError(path, "read failed after the header");
  for (int64_t i = 0; i < count; ++i)
    if (int64_t(tokens[size_t(i)]) >= vocab)
      throw DataFormatError(path, "token " + std::to_string(tokens[size_t(i)]) + " at position " + std::to_string(i) +
                                      " is outside the vocabulary of " + std::to_string(vocab));
  return tokens;
}

void write_token_shard(const std::string& path, const std::vector<uint32_t>& tokens, ShardFormat format) {
  const Variant& v = variant_of(format);
  if (tokens.size() > size_t(INT32_MAX)) throw std::runtime_error(path + ": more tokens than a shard header holds");
  int32_t header[kShardHeaderInts] = {};
  header[0] = v.magic;
  header[1] = v.version;
  header[2] = int32_t(tokens.size());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(header), sizeof header);
    if (v.width == 2) {
      std::vector<uint16_t> raw(tokens.size(), 0);
      for (size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i] > 0xffff)
          throw std::runtime_error(path + ": token " + std::to_string(tokens[i]) + " over uint16");
        raw[i] = uint16_t(tokens[i]);
      }
      out.write(reinterpret_cast<const char*>(raw.data()), std::streamsize(raw.size() * 2));
    } else {
      out.write(reinterpret_cast<const char*>(tokens.data()), std::streamsize(tokens.size() * 4));
    }
    if (!out.flush()) throw std::runtime_error(tmp + ": cannot write the token shard");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error(path + ": cannot rename the written shard: " + ec.message());
}

ShardFiles list_token_shards(const std::string& dir) {
  ShardFiles out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".bin") continue;
    if (name.find("_val_") != std::string::npos) out.val.push_back(e.path().string());
    if (name.find("_train_") != std::string::npos) out.train.push_back(e.path().string());
  }
  std::sort(out.val.begin(), out.val.end());
  std::sort(out.train.begin(), out.train.end());
  return out;
}

void generate_token_shards(const std::string& dir, const TokenGenOptions& o) {
  if (o.vocab < 2) throw std::invalid_argument("token generator: vocabulary must be >= 2");
  fs::create_directories(dir);
  const uint64_t chain = splitmix64(o.seed);  // the successor table: one per seed, the same in every shard
  write_token_shard(dir + "/" + shard_name(o.prefix, "val", 0), markov_tokens(o.val_tokens, o.vocab, chain, o.seed),
                    o.format);
  for (int64_t k = 1; k <= o.train_shards; ++k)
    write_token_shard(dir + "/" + shard_name(o.prefix, "train", k),
                      markov_tokens(o.train_tokens_per_shard, o.vocab, chain, o.seed + uint64_t(k) * 0x1000193ull),
                      o.format);
}

const TokenDataset& token_dataset(const std::string& name) {
  static const TokenDataset table[] = {
      // 3 x 100 M tokens (600 MB): five minutes at 1 M tokens/s before the first wrap.
      {"llmc_gpt2", 50257, {50257, 1 << 20, 3, 100'000'000, 20240520, ShardFormat::Gpt2, "fineweb"}},
      // Llama 3's variant (uint32 tokens, vocabulary 128256), as many tokens as llmc_gpt2 (1.2 GB).
      {"llmc_llama3", 128256, {128256, 1 << 20, 3, 100'000'000, 20240801, ShardFormat::Llama3, "fineweb"}},
      // 4 M tokens: a tiny config at 50 k tokens/s runs 80 s before it wraps.
      {"llmc_tiny256", 256, {256, 1 << 16, 1, 4'000'000, 256, ShardFormat::Gpt2, "tiny"}},
  };
  for (const auto& d : table)
    if (name == d.name) return d;
  throw std::invalid_argument("no token dataset named " + name);
}

std::string token_dataset_dir(const std::string& dataroot, const std::string& name) {
  return dataroot + "/" + token_dataset(name).name;
}

bool token_dataset_present(const std::string& dataroot, const std::string& name) {
  const ShardFiles f = list_token_shards(token_dataset_dir(dataroot, name));
  return !f.val.empty() && !f.train.empty();
}

void generate_token_dataset(const std::string& dataroot, const std::string& name, const DatasetOptions& o) {
  const TokenDataset& d = token_dataset(name);
  TokenGenOptions g = d.gen;
  g.train_tokens_per_shard = std::max<int64_t>(int64_t(double(g.train_tokens_per_shard) * o.scale), 1 << 16);
  const std::string dir = token_dataset_dir(dataroot, name);
  generate_token_shards(dir, g);
  record_manifest(dataroot, d.name,
                  {{"synthetic", true},
                   {"generator", "milarun: sparse first-order Markov chain, EOT-delimited documents"},
                   {"vocab", d.vocab},
                   {"train_tokens", g.train_tokens_per_shard * g.train_shards},
                   {"val_tokens", g.val_tokens},
                   {"scale", o.scale}});
}

}  // namespace milabench
