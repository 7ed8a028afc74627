// WMT16 reader: vocabulary, parallel BPE files -> ids, length filter.
#include "data/wmt16.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "data/data_error.hpp"
#include "data/manifest.hpp"
#include "sys/read_file.hpp"

namespace milabench {
namespace {

[[noreturn]] void bad_file(const std::string& path, const std::string& what, const std::string& dataroot) {
  throw DataError("wmt16 file " + path + ": " + what + "; run: " + dataset_remake_command("wmt16", dataroot));
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The whole file; throws naming it (and the command that makes it) when it cannot be read.
std::string whole_file(const std::string& path, const std::string& dataroot) {
  std::string why;
  auto text = read_whole_file(path, &why);
  if (!text) bad_file(path, why, dataroot);
  return std::move(*text);
}

// Reads `path` (its first max_lines lines when > 0) with `threads` parsers.
TokenLines read_lines(const std::string& path, const Vocabulary& vocab, int64_t max_lines, unsigned threads,
                      const std::string& dataroot) {
  std::string text = whole_file(path, dataroot);
  std::string_view all(text);
  if (max_lines > 0) {
    size_t pos = 0;
    for (int64_t n = 0; n < max_lines && pos < all.size(); ++n) {
      size_t nl = all.find('\n', pos);
      pos = nl == std::string_view::npos ? all.size() : nl + 1;
    }
    all = all.substr(0, pos);
  }
  threads = std::max(1u, std::min<unsigned>(threads, unsigned(all.size() / (1 << 20)) + 1));
  std::vector<std::string_view> pieces;
  size_t start = 0;
  for (unsigned t = 1; t <= threads && start < all.size(); ++t) {
    size_t cut = t == threads ? all.size() : std::max(start, all.size() * t / threads);
    if (cut < all.size()) {
      size_t nl = all.find('\n', cut);
      cut = nl == std::string_view::npos ? all.size() : nl + 1;
    }
    pieces.push_back(all.substr(start, cut - start));
    start = cut;
  }
  std::vector<TokenLines> parts(pieces.size());
  std::vector<std::thread> pool;
  for (size_t i = 0; i < pieces.size(); ++i)
    pool.emplace_back([&, i] { parts[i] = parse_bpe_lines(pieces[i], vocab); });
  for (auto& t : pool) t.join();
  if (parts.size() == 1) return std::move(parts[0]);
  TokenLines out;
  for (const auto& p : parts) {
    int64_t base = int64_t(out.ids.size());
    out.ids.insert(out.ids.end(), p.ids.begin(), p.ids.end());
    for (size_t k = 1; k < p.offsets.size(); ++k) out.offsets.push_back(base + p.offsets[k]);
  }
  return out;
}

void append_line(TokenLines& to, const TokenLines& from, int64_t i) {
  to.ids.insert(to.ids.end(), from.line(i), from.line(i) + from.length(i));
  to.offsets.push_back(int64_t(to.ids.size()));
}

}  // namespace

std::string wmt16_dir(const std::string& dataroot) {
  std::string dir = dataroot + "/wmt16";
  if (!exists(dir + "/" + kWmt16Vocab) && exists(dir + "/data/" + kWmt16Vocab)) return dir + "/data";
  return dir;
}

Vocabulary load_vocabulary(const std::string& path, const std::string& dataroot) {
  const std::string text = whole_file(path, dataroot);
  try {
    return Vocabulary::parse(text, path);
  } catch (const DataFormatError& e) {
    bad_file(path, e.problem(), dataroot);
  }
}

ParallelCorpus read_parallel(const std::string& src_path, const std::string& tgt_path, const Vocabulary& vocab,
                             const ParallelOptions& opt, const std::string& dataroot) {
  unsigned half = std::max(1u, opt.threads / 2);
  TokenLines src, tgt;
  std::exception_ptr src_error;
  std::thread src_reader([&] {
    try {
      src = read_lines(src_path, vocab, opt.max_size, half, dataroot);
    } catch (...) {
      src_error = std::current_exception();
    }
  });
  tgt = read_lines(tgt_path, vocab, opt.max_size, std::max(1u, opt.threads - half), dataroot);
  src_reader.join();
  if (src_error) std::rethrow_exception(src_error);
  if (src.size() != tgt.size())
    bad_file(tgt_path,
             std::to_string(tgt.size()) + " lines but " + src_path + " has " + std::to_string(src.size()) +
                 " (the two sides must be aligned line by line)",
             dataroot);
  ParallelCorpus c;
  c.pairs_read = src.size();
  for (int64_t i = 0; i < src.size(); ++i) {
    int32_t ls = src.length(i), lt = tgt.length(i);
    if (ls < opt.min_length || ls > opt.max_length || lt < opt.min_length || lt > opt.max_length) continue;
    append_line(c.src, src, i);
    append_line(c.tgt, tgt, i);
    c.lengths.push_back(ls + lt);
  }
  return c;
}

Wmt16 read_wmt16_train(const std::string& dataroot, const ParallelOptions& opt) {
  std::string dir = wmt16_dir(dataroot);
  Wmt16 w;
  w.vocab = load_vocabulary(dir + "/" + kWmt16Vocab, dataroot);
  w.train = read_parallel(dir + "/" + kWmt16TrainEn, dir + "/" + kWmt16TrainDe, w.vocab, opt, dataroot);
  return w;
}

bool wmt16_present(const std::string& dataroot) {
  std::string dir = wmt16_dir(dataroot);
  for (const char* f : {kWmt16Vocab, kWmt16TrainEn, kWmt16TrainDe, kWmt16TestEn, kWmt16TestDe})
    if (!exists(dir + "/" + f)) return false;
  return true;
}

nlohmann::json wmt16_provenance(const std::string& dataroot) { return dataset_provenance(dataroot, "wmt16"); }

}  // namespace milabench
