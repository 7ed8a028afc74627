// `milarun dataset`: make (generate) datasets under a data root.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "data/dataset.hpp"

namespace milabench {

struct DatasetCommand {
  std::vector<std::string> names;  // short names or aliases ("milarun.datasets:mnist")
  std::string profile;             // also: every dataset a test of this profile names
  std::string dataroot;            // -d (default $MILARUN_DATAROOT)
  DatasetOptions options;          // --scale, --threads, --force
  bool download = false;           // fetch the real data where the table has a source (others generated)
};

// Generates each named dataset that is absent (all of them with --force), or
// with `download` fetches the original's files (verified, resumable, safely
// extracted: src/fetch) and records them in the MANIFEST as real data; a
// dataset without a download source (fake_imagenet, wmt16) is generated.
// Returns 0 when all are present afterwards, 2 on bad usage (unknown name,
// no data root, unreadable profile: one line naming it) or a directory in
// the way of a download, 1 when a download or generator failed (its error
// printed, other datasets still made).
int run_dataset_command(const DatasetCommand& cmd, std::ostream& out, std::ostream& err);

// Dataset names (as written) that the tests of `profile_path` pass as
// "--dataset". Throws ProfileError.
std::vector<std::string> datasets_of_profile(const std::string& profile_path);

}  // namespace milabench
