// What a summary flags beside a test's numbers: results of one run found
// twice (two suites in one folder, folders merged, a second `jobs` without
// --resume) and runs made with different arguments, which one mean would
// otherwise average silently (docs/reliability.md).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "results/result_record.hpp"

namespace milabench {

// One test's flags, fed every counted result of the test in file order.
class SummaryFlags {
 public:
  // Records `r` (its file shown as `label`). A second result of the same
  // run (job id) on the same device appends one warning line naming both files.
  void add(const ResultRecord& r, const std::string& label, std::vector<std::string>& warnings);

  // Adds the set-up of a run whose rates the test's numbers average: its
  // result_inventory (evidence.hpp) with "milarun" (version and commit).
  void add_setup(const nlohmann::json& inventory);

  // Adds a counted run's skipped inputs (metrics.images_skipped).
  void add_skipped(double images) { skipped_ += images; }

  // Adds a successful run that did not have its devices to itself
  // (ResultRecord::contended): one warning line naming it and what it lost.
  void add_contended(const ResultRecord& r, const std::string& label, std::vector<std::string>& warnings);

  // Adds to the summary entry "images_skipped" (the sum over its runs, when
  // any) and "arguments": the distinct argument lists of
  // its results (normalised number words), and when there are any,
  // "duplicate_runs": one "FILE repeats FILE" string per extra result, and
  // "contended_runs": {"FILE": contention_readings} per contended run, and
  // "mixed_setups": {key: [values]} for each set-up key (mixed_setup_keys)
  // on which the averaged runs differ. One warning line when the test holds
  // more than one argument list, one when it holds mixed set-ups.
  void write(const std::string& test, nlohmann::json& entry, std::vector<std::string>& warnings) const;

 private:
  std::map<std::string, std::string> first_;  // "job_id@device" -> label of its first result
  std::vector<std::string> duplicates_;
  std::set<std::vector<std::string>> argument_sets_;
  double skipped_ = 0;
  nlohmann::json contended_ = nlohmann::json::object();
  std::map<std::string, std::set<std::string>> setups_;  // set-up key -> values of the averaged runs
};

// The set-up keys on which a test's averaged runs must agree: the machine
// (GPU model, driver, CPU count, power limit, governor, boost), the software
// (libtorch, milarun's version and commit), the isolation, the data and the
// opt-in shortcuts and stand-ins. Runs made on two machines, or on one before
// and after an upgrade, averaged in one mean, describe neither.
const std::vector<std::string>& mixed_setup_keys();

// The "milarun" set-up value of a result without one: the original's.
constexpr const char* kNotMilarun = "not recorded (the original milabench?)";

// The lines a report prints above its table for `summary`'s flags, per
// test: "DUPLICATE RESULTS: ...", "MIXED ARGUMENTS: ...", "SKIPPED INPUTS:
// ...", "CONTENDED: ...", "MIXED SET-UPS: ...", "POWER LIMIT: ..." (the
// machine's GPUs ran under a lowered power limit: result_inventory's
// gpu_power_limit) and "MIG: ..." (its GPUs were split into MIG instances:
// gpu_mig); empty when none. `machine` words whose machine a contended run
// may understate: "this machine", or for a --compare baseline's own flags
// "the baseline's machine".
std::vector<std::string> summary_flag_lines(const nlohmann::json& summary, const std::string& machine = "this machine");

}  // namespace milabench
