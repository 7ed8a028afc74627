// An output folder whose files carry another clock's times: -o on NFS or a
// shared file system whose server's clock is behind or ahead of this node's
// (a Slurm node's, too), or a clock stepped during a wave. `jobs` tells the
// runs' results apart from older files by what the folder held before the
// wave, not by modification times (docs/reliability.md).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "fake_worker.hpp"
#include "scratch_dir.hpp"
#include "suite/jobs.hpp"
#include "suite/run_outcome.hpp"
#include "test_files.hpp"

using namespace milabench;
using namespace milabench::test;
namespace fs = std::filesystem;

namespace {

// A suite of `profile_text` whose runs are the fake worker behind a wrapper:
// a run given --crash exits 1 and writes nothing; after every other run, each
// result file in -o gets the modification time `touch -d` reads from
// `file_time` (a file server's clock).
JobsOptions suite_on_a_foreign_clock(const std::string& dir, const std::string& profile_text,
                                     const std::string& file_time) {
  JobsOptions o = fake_suite(dir, profile_text);
  const std::string wrapper = dir + "/on_foreign_clock.sh";
  write_text(wrapper, "#!/bin/sh\ncase \" $* \" in *' --crash '*) exit 1;; esac\n" + o.self_exe +
                          " \"$@\"\nrc=$?\nprev=\nfor a; do [ \"$prev\" = -o ] && o=$a; prev=$a; done\n"
                          "touch -m -d '" +
                          file_time + "' \"${o%/}\"/*.json\nexit $rc\n");
  ::chmod(wrapper.c_str(), 0755);
  o.self_exe = wrapper;
  return o;
}

int files_of(const std::string& outdir, const std::string& prefix) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(outdir)) n += e.path().filename().string().rfind(prefix, 0) == 0;
  return n;
}

}  // namespace

// A file server one hour behind: the results were written during the wave
// but carry times from before it. Before: the good run was LOST (exit 1,
// "could not be kept") and the failed one got a second FAIL file, counted twice.
TEST(ForeignClock, ResultsStampedBeforeTheWaveByTheFileServerAreStillTheRunsOwn) {
  const std::string dir = scratch_dir("clock_behind");
  JobsOptions o = suite_on_a_foreign_clock(
      dir, R"({"good": {"experiment": "x"}, "bad": {"experiment": "x", "arguments": {"--fail": true}}})", "1 hour ago");
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 1) << out.str() << err.str();
  EXPECT_NE(out.str().find("mini.good J0.0 OK"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("mini.bad J0.0 FAIL"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("LOST"), std::string::npos) << out.str();
  EXPECT_EQ(err.str().find("could not be kept"), std::string::npos) << err.str();
  EXPECT_EQ(files_of(o.outdir, "mini.good.J0.0."), 1);
  EXPECT_EQ(files_of(o.outdir, "mini.bad.J0.0.FAIL."), 1);  // the run's own, no second one from jobs
}

// A file server one hour ahead, and a folder that already holds an earlier
// suite's result of the same run: when the run now crashes without a result,
// that older file is not its result. Before: the line said "OK (its result
// was written before it ended ...)" and no failure was recorded.
TEST(ForeignClock, AnOlderResultStampedAheadByTheFileServerIsNotPassedOffAsTheRuns) {
  const std::string dir = scratch_dir("clock_ahead");
  JobsOptions first = suite_on_a_foreign_clock(dir, R"({"t": {"experiment": "x"}})", "1 hour");
  std::ostringstream out1, err1;
  ASSERT_EQ(run_jobs(first, out1, err1), 0) << out1.str() << err1.str();
  ASSERT_EQ(files_of(first.outdir, "mini.t.J0.0."), 1);
  JobsOptions again =
      suite_on_a_foreign_clock(dir, R"({"t": {"experiment": "x", "arguments": {"--crash": true}}})", "1 hour");
  again.mixed_arguments = true;  // the same run, now crashing: a second suite in the folder
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(again, out, err), 1) << out.str() << err.str();
  EXPECT_NE(out.str().find("mini.t J0.0 FAIL"), std::string::npos) << out.str();
  EXPECT_EQ(files_of(again.outdir, "mini.t.J0.0.FAIL."), 1);
}

// The folder's state is what tells a wave's files apart: a name it did not
// hold, or a file replaced or rewritten since (an atomic write is a new inode).
TEST(ForeignClock, AFileIsTheWavesWhenItIsNewOrReplacedWhateverItsTime) {
  const std::string dir = scratch_dir("clock_state");
  const std::string old_file = dir + "/s.a.J0.0.20260101-000000-000001.json";
  write_text(old_file, R"({"name": "s.a", "success": true})");
  const ResultFolderState before = result_folder_state(dir);
  EXPECT_FALSE(has_result_file(dir, "s.a", "0.0", before));
  write_text(dir + "/s.a.J1.0.20200101-000000-000001.json", R"({"name": "s.a", "success": true})");
  EXPECT_FALSE(has_result_file(dir, "s.a", "0.0", before));  // another run's
  EXPECT_TRUE(has_result_file(dir, "s.a", "1.0", before));   // stamped 2020, yet new
  write_text(old_file + ".tmp", R"({"name": "s.a", "success": false, "failure_kind": "exit"})");
  fs::rename(old_file + ".tmp", old_file);
  const auto rec = run_result(dir, "s.a", "0.0", before);
  ASSERT_TRUE(rec.has_value());
  EXPECT_FALSE(rec->success);
}
