// Recording a results folder into the store: `milarun db import DIR` and
// `milarun jobs` (after each wave). The JSON files stay the source of
// truth; recording is idempotent (a run already in the store is skipped),
// so a re-import, a --resume or two recorders of one folder never duplicate.
#pragma once
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>

#include "store/result_store.hpp"

namespace milabench::store {

struct ImportCounts {
  int added = 0, present = 0, skipped = 0;  // skipped: not a result file (one warning each)
};

// Records every result file of `dir` and its sub-folders (as the summary
// reads them) as one suite run: the one already holding any of its runs,
// else a new one keyed by (machine, absolute dir). `warn` gets one line per
// skipped file. Throws StoreError.
ImportCounts import_directory(ResultStore& store, const std::string& dir, std::ostream& warn);

// `milarun jobs`' recorder: never throws and never stops the suite. The
// first store error (unreachable, locked, full, newer schema) is one warning
// on `err`; recording then stops for this suite (`milarun db import OUTDIR`
// adds the rest later).
class SuiteRecorder {
 public:
  // `spec` "" records nothing. `profile`: the profile path.
  SuiteRecorder(const std::string& spec, const std::string& outdir, const std::string& profile, std::ostream& err);
  // Records the result files of the folder not recorded yet by this recorder.
  void record_new();
  // Records what is left and sets the suite run's end time.
  void finish();
  bool active() const { return store_ != nullptr; }

 private:
  void disable(const std::string& why);

  std::unique_ptr<ResultStore> store_;
  std::string spec_, outdir_;
  std::ostream& err_;
  std::int64_t suite_id_ = 0;
  std::string machine_;
  std::set<std::string> seen_;
};

// The machine and suite of a results folder's runs: the first result file's
// "hostname" (this machine's when none has one) and name prefix ("cpu" of
// "cpu.vae"); outdir is the folder made absolute. nullopt when it holds no
// result file (or is no folder).
std::optional<SuiteRunInfo> folder_identity(const std::string& dir);

// This machine's host name.
std::string host_name();
// `path` made absolute and canonical where it exists.
std::string absolute_dir(const std::string& path);

}  // namespace milabench::store
