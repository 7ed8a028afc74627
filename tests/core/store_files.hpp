// Results folders for store tests: counted result files named as `milarun
// run` names them, with a fixed host name and stamps that order the suite runs.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "result_files.hpp"
#include "results/result_name.hpp"

namespace milabench::test {

// Writes `repeats` x `devices` results of test `name` into a fresh folder:
// rates around `perf` (each run's slices `perf * (1 + 0.01 * k)`, k varying
// by run), stamped at `epoch_s` + run index; `edit` changes each document
// (its run index) before it is written. Returns the folder.
inline std::string suite_folder(const std::string& tag, const std::string& name, double perf, long long epoch_s,
                                int repeats = 3, int devices = 2, const std::string& host = "labnode",
                                const std::function<void(nlohmann::json&, int)>& edit = {}) {
  const std::string dir = result_dir(tag);
  int i = 0;
  for (int r = 0; r < repeats; ++r)
    for (int d = 0; d < devices; ++d, ++i) {
      const double k = 1 + 0.01 * ((i * 7) % 5 - 2);
      std::vector<double> rates(24, perf * k);
      const std::string job = std::to_string(r) + "." + std::to_string(d);
      auto doc = result_record(name, job, std::to_string(d), rates);
      doc["hostname"] = host;
      doc["arguments"] = {"--batch-size", "64"};
      if (edit) edit(doc, i);
      write_json(dir + "/" + result_file_name(name, job, false, (epoch_s + i) * 1000000LL), doc);
    }
  return dir;
}

}  // namespace milabench::test
