// Scratch folders for core tests: made under /tmp, all removed (with their
// contents) when the test process exits, so a test run leaves nothing behind.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace milabench::test {

inline std::string scratch_dir(const std::string& tag) {
  struct Registry {
    std::vector<std::string> dirs;
    ~Registry() {
      std::error_code ec;
      for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
    }
  };
  static Registry registry;
  std::string tmpl = "/tmp/" + tag + "_XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
  registry.dirs.push_back(tmpl);
  return tmpl;
}

}  // namespace milabench::test
