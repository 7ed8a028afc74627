// Fuzz target: the result/summary reader (report/summary.hpp). Contract under
// test: parse_json_lenient either parses or throws parse_error / out_of_range;
// summarize_directory and collect_rate_series never throw on a bad result
// file (they skip it with a warning). The input is written as the only
// result file of a scratch directory, as `milarun summary` would find it.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "report/summary.hpp"

namespace {
// Created once per process, removed at exit (the string is never destroyed,
// so the exit handler can still read it).
const std::string& scratch_dir() {
  static const std::string* dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "milabench-fuzz-summary-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) std::abort();
    auto* d = new std::string(tmpl);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return *dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    nlohmann::json j = milabench::parse_json_lenient(text);
    (void)j.dump();
  } catch (const nlohmann::json::parse_error&) {
  } catch (const nlohmann::json::out_of_range&) {
  }
  const std::string dir = scratch_dir();
  {
    std::ofstream out(dir + "/standard.fuzz.J0.0.20200101-000000-000000.json", std::ios::binary | std::ios::trunc);
    out << text;
  }
  std::vector<std::string> warnings;
  nlohmann::json summary = milabench::summarize_directory(dir, warnings);
  (void)summary.dump();
  auto series = milabench::collect_rate_series(dir, warnings);
  (void)series;
  return 0;
}
