// Issue 24: two suites in one folder, copies of one run, mixed arguments, a
// vanished -o. Each case as a user would meet it (docs/reliability.md).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fake_worker.hpp"
#include "launch/capture_output.hpp"
#include "launch/lifeline.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "result_files.hpp"
#include "results/result_record.hpp"
#include "suite/jobs.hpp"
#include "suite/outdir_lock.hpp"
#include "suite/plan.hpp"
#include "suite/profile.hpp"
#include "suite/run_outcome.hpp"

using namespace milabench;
using namespace milabench::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// An executable script at dir/name with `text`; returns its path.
// `milarun report DIR`'s text, or "report failed: " and its errors.
std::string report_text(const fs::path& dir) {
  ReportOptions r;
  r.input = dir.string();
  std::ostringstream out, err;
  return run_report(r, out, err) == 0 ? out.str() : "report failed: " + err.str();
}

std::string write_script(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  write_text(path, "#!/bin/sh\n" + text);
  ::chmod(path.c_str(), 0755);
  return path;
}

// A fake worker whose `body` runs with the run's arguments parsed into $o
// (-o), $n (--experiment-name), $j (--job-id) and $k (--skip).
std::string parsing_worker(const std::string& dir, const std::string& name, const std::string& body) {
  return write_script(dir, name,
                      "while [ $# -gt 0 ]; do case $1 in -o) o=$2;; --experiment-name) n=$2;; --job-id) j=$2;; "
                      "--skip) k=$2;; esac; shift; done\n" +
                          body);
}

}  // namespace

TEST(OutdirLock, ASecondSuiteOnTheSameFolderIsRefusedNamingTheFolderAndTheHolder) {
  const std::string dir = scratch_dir("lock");
  JobsOptions o = fake_suite(dir, R"({"a": {"experiment": "x"}})");
  fs::create_directories(o.outdir);
  {
    OutdirLock first;  // a suite running in o.outdir
    ASSERT_EQ(first.acquire(o.outdir), "");
    std::ostringstream out, err;
    EXPECT_EQ(run_jobs(o, out, err), 2);
    EXPECT_NE(err.str().find("error: " + o.outdir + " is in use by another milarun jobs (pid " +
                             std::to_string(::getpid()) + ")"),
              std::string::npos)
        << err.str();
    o.resume = true;  // --resume is refused the same way
    std::ostringstream out2, err2;
    EXPECT_EQ(run_jobs(o, out2, err2), 2);
    EXPECT_EQ(fake_calls(dir), 0);
  }
  std::ostringstream out3, err3;  // the holder is gone: the folder is free
  EXPECT_EQ(run_jobs(o, out3, err3), 0) << err3.str();
  EXPECT_EQ(fake_calls(dir), 1);
}

TEST(OutdirLock, AKilledHolderLeavesNoStuckLock) {
  const std::string dir = scratch_dir("lock_kill");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    OutdirLock l;
    const bool ok = l.acquire(dir).empty();
    (void)!::write(ready[1], ok ? "y" : "n", 1);
    ::pause();  // holds it until killed
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  OutdirLock mine;
  EXPECT_NE(mine.acquire(dir).find("(pid " + std::to_string(child) + ")"), std::string::npos);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(mine.acquire(dir), "");  // kill -9 released it
}

TEST(OutdirLock, ARunStartedUnderTheLockHoldsItAfterTheSuiteDies) {
  const std::string dir = scratch_dir("lock_run");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t suite = ::fork();
  if (suite == 0) {  // a suite: takes the lock, starts a run (exec'd), then dies
    OutdirLock l;
    if (!l.acquire(dir).empty()) _exit(1);
    const pid_t run = ::fork();
    if (run == 0) {
      ::execl("/bin/sleep", "sleep", "600", static_cast<char*>(nullptr));
      _exit(127);
    }
    (void)!::write(ready[1], &run, sizeof run);
    _exit(0);
  }
  pid_t run = -1;
  ASSERT_EQ(::read(ready[0], &run, sizeof run), static_cast<ssize_t>(sizeof run));
  int status = 0;
  ::waitpid(suite, &status, 0);
  OutdirLock mine;
  EXPECT_NE(mine.acquire(dir).find("or a run it started"), std::string::npos);  // the run still lives
  ::kill(run, SIGKILL);
  // The run was the suite's child, now reparented: wait until it is gone before retrying.
  while (::kill(run, 0) == 0) {
    std::ifstream stat("/proc/" + std::to_string(run) + "/stat");
    std::string pid_, comm, state;
    if (stat >> pid_ >> comm >> state && state == "Z") break;  // dead, only its reaper is late
    ::usleep(1000);
  }
  EXPECT_EQ(mine.acquire(dir), "");
}

TEST(SuiteLifeline, TheVariableNamesTheInheritedPipeAndNothingElse) {
  ::unsetenv(kLifelineEnv);
  EXPECT_FALSE(watch_suite_lifeline());  // outside jobs: nothing watched
  {
    SuiteLifeline l;
    ASSERT_EQ(l.open(), "");
    const char* value = std::getenv(kLifelineEnv);
    ASSERT_NE(value, nullptr);
    const int fd = lifeline_fd(value);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(::fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);  // runs inherit the read end
    const std::string v = value;
    const std::string other_inode = v.substr(0, v.rfind(':') + 1) + "1";
    EXPECT_EQ(lifeline_fd(other_inode), -1);  // same number, another file: a stray descriptor
    EXPECT_EQ(lifeline_fd("0:" + v.substr(v.find(':') + 1)), -1);
    EXPECT_EQ(lifeline_fd("garbage"), -1);
    EXPECT_EQ(lifeline_fd(v + "x"), -1);
  }
  EXPECT_EQ(std::getenv(kLifelineEnv), nullptr);  // the suite's end unsets it
}

TEST(SummaryFlags, TwoResultsOfOneRunAreFlaggedInTheSummaryAndTheReport) {
  const fs::path dir = result_dir("dup");
  const std::vector<double> rates(12, 100.0);
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", result_record("s.a", "0.0", "0", rates));
  write_json(dir / "s.a.J0.0.20260101-000000-000002.json", result_record("s.a", "0.0", "0", rates));
  write_json(dir / "s.a.J0.1.20260101-000000-000001.json", result_record("s.a", "0.1", "1", rates));
  std::vector<std::string> warnings;
  json summary = summarize_directory(dir.string(), warnings);
  ASSERT_EQ(summary["s.a"]["duplicate_runs"].size(), 1u) << summary.dump();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("s.a.J0.0.20260101-000000-000001.json and s.a.J0.0.20260101-000000-000002.json are "
                             "both results of s.a run J0.0 on device 0"),
            std::string::npos)
      << warnings[0];
  const std::string report = report_text(dir);
  EXPECT_NE(report.find("DUPLICATE RESULTS: s.a has 1 result(s) of a run (job id, device) already counted"),
            std::string::npos)
      << report;
}

TEST(SummaryFlags, RunsOfOneTestWithOtherArgumentsAreKeptAndFlagged) {
  const fs::path dir = result_dir("mixedargs");
  const std::vector<double> rates(12, 100.0);
  json a = result_record("s.a", "0.0", "0", rates), b = result_record("s.a", "1.0", "0", rates);
  a["arguments"] = {"--batch-size", "32"};
  b["arguments"] = {"--batch-size", "64"};
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", a);
  write_json(dir / "s.a.J1.0.20260101-000000-000001.json", b);
  std::vector<std::string> warnings;
  json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.a"]["arguments"], json::parse(R"([["--batch-size", "32"], ["--batch-size", "64"]])"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("s.a averages runs made with 2 different argument lists"), std::string::npos);
  std::ostringstream out;
  print_report(build_report(summary, json(), json(), 0, false, ""), out);
  EXPECT_NE(out.str().find("MIXED ARGUMENTS: s.a averages runs made with 2 different argument lists: (--batch-size "
                           "32), (--batch-size 64)"),
            std::string::npos)
      << out.str();
  // One argument list: kept in the summary, nothing flagged.
  fs::remove(dir / "s.a.J1.0.20260101-000000-000001.json");
  std::vector<std::string> w2;
  json one = summarize_directory(dir.string(), w2);
  EXPECT_EQ(one["s.a"]["arguments"].size(), 1u);
  EXPECT_TRUE(w2.empty());
}

// A run whose CPUs other processes used during its summary window (a shared
// node) is counted, since it is evidence, but flagged: one warning, the
// entry's contended_runs, a CONTENDED line in the report and a note on the
// jobs line. A run under the threshold is not.
TEST(SummaryFlags, RunsThatSharedTheirCpusAreCountedAndFlagged) {
  const fs::path dir = result_dir("contended");
  const std::vector<double> rates(12, 100.0);
  auto with_share = [&](const std::string& job, double share) {
    json r = result_record("s.a", job, "0", rates);
    r["monitor"] = {{"foreign_cpu", {{"cpus", 2}, {"usable_cpus", 2}, {"window_share", share}}}};
    return r;
  };
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", with_share("0.0", 0.34));
  write_json(dir / "s.a.J1.0.20260101-000000-000001.json", with_share("1.0", 0.02));
  std::vector<std::string> warnings;
  json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.a"]["n"], 2);
  EXPECT_EQ(summary["s.a"]["failures"], 0);
  ASSERT_EQ(summary["s.a"]["contended_runs"].size(), 1u) << summary.dump();
  EXPECT_EQ(summary["s.a"]["contended_runs"]["s.a.J0.0.20260101-000000-000001.json"],
            json::parse(R"({"cpu_share": 0.34, "sibling_cpu_share": null, "memory_stall_share": null,
                            "major_faults_per_s": null, "cpu_throttle_share": null, "gpu_slowdown_share": null,
                            "other_gpu_processes": null, "stopped_share": null})"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("s.a.J0.0.20260101-000000-000001.json: other processes used 34% of its CPUs"),
            std::string::npos)
      << warnings[0];
  const std::string report = report_text(dir);
  EXPECT_NE(report.find("CONTENDED: s.a has 1 run(s) that did not have their devices to themselves during the "
                        "summary window (other processes used up to 34% of their CPUs' time): their rates may "
                        "understate this machine"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("[contended: 1 run(s)]"), std::string::npos) << report;  // beside the test's numbers
  // The same summary as a --compare baseline (a summary file of ours, @last): its flag is shown too.
  std::ostringstream against;
  print_report(build_report(summary, json(), summary, 0, false, ""), against);
  EXPECT_NE(against.str().find("IN THE BASELINE: CONTENDED: s.a has 1 run(s) that did not have their devices to "
                               "themselves during the summary window (other processes used up to 34% of their CPUs' "
                               "time): their rates may understate the baseline's machine"),
            std::string::npos)
      << against.str();
  const auto rec = parse_result_record(with_share("0.0", 0.34)).value();
  EXPECT_EQ(contention_note(rec), "CONTENDED: other processes used 34% of its CPUs during its summary window");
  EXPECT_EQ(contention_note(parse_result_record(with_share("1.0", 0.02)).value()), "");
}

TEST(SummaryFlags, ResultsMovedToSupersededAreNotCounted) {
  const fs::path dir = result_dir("superseded");
  write_json(dir / "s.a.J0.0.20260101-000000-000002.json", result_record("s.a", "0.0", "0", {100, 100, 100, 100}));
  fs::create_directories(dir / "superseded");
  json failed = result_record("s.a", "0.0", "0", {}, false);
  failed["failure_kind"] = "interrupted";
  write_json(dir / "superseded" / "s.a.J0.0.FAIL.20260101-000000-000001.json", failed);
  std::vector<std::string> warnings;
  json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.a"]["n"], 1);
  EXPECT_EQ(summary["s.a"]["failures"], 0);
  EXPECT_FALSE(summary["s.a"].contains("duplicate_runs"));
}

TEST(JobsOutput, AFolderRemovedMidSuiteIsMadeAgainAndALostResultFailsTheSuite) {
  const std::string dir = scratch_dir("vanish");
  // a's prepare removes -o (a user cleaning up the wrong folder); b's run
  // removes it after writing its result; c runs after both.
  JobsOptions o = fake_suite(dir, R"({"a": {"experiment": "x", "prepare": ["rm -rf )" + dir + R"(/out"]},
      "b": {"experiment": "x", "arguments": {"--remove-out": true}}, "c": {"experiment": "x"}})");
  o.self_exe = write_script(
      dir, "fake2.sh", o.self_exe + " \"$@\"\ncase \" $* \" in *' --remove-out '*) rm -rf " + dir + "/out;; esac\n");
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 1) << out.str() << err.str();
  EXPECT_NE(err.str().find("was removed during the suite; made it again"), std::string::npos) << err.str();
  EXPECT_TRUE(fs::is_directory(o.outdir));
  auto found = existing_results(o.outdir);
  // -o DIR/: a's run made the folder again and kept its result there (b's run removed it later).
  EXPECT_NE(out.str().find("mini.a J0.0 OK"), std::string::npos) << out.str();
  EXPECT_EQ(found.count({"mini.c", "0.0"}), 1u);
  EXPECT_NE(out.str().find("mini.b J0.0 LOST"), std::string::npos) << out.str();
  EXPECT_NE(err.str().find("1 result(s) could not be kept in " + o.outdir), std::string::npos) << err.str();
  EXPECT_NE(out.str().find("1 failed"), std::string::npos) << out.str();
}

// The original's rule: a weighted test without a result counts as perf 1. On
// a machine where tests run below 1 example/s a failing test raises the score.
TEST(ScoreEffect, TheReportSaysWhichTestsWithoutAResultMovedTheScoreAndWhichWay) {
  auto entry = [](double mean) {
    return json{{"n", 2}, {"failures", 0}, {"train", {{"n", 2}, {"mean", mean}, {"std", 0}}}};
  };
  json weights = {{"s.a", 1}, {"s.b", 1}, {"s.c", 1}};
  ReportData slow = build_report({{"s.a", entry(0.25)}, {"s.b", entry(0.25)}}, weights, json(), 0, false, "");
  EXPECT_NEAR(slow.score, std::pow(0.25, 2.0 / 3), 1e-12);  // the original's number, kept
  std::ostringstream out;
  print_report(slow, out);
  EXPECT_NE(out.str().find("moved by test(s) without a result, each counted as perf 1 (the original's rule): s.c "
                           "raised it (0.25 without it)"),
            std::string::npos)
      << out.str();
  ReportData fast = build_report({{"s.a", entry(400)}, {"s.b", entry(400)}}, weights, json(), 0, false, "");
  EXPECT_EQ(missing_effect_text(fast), "s.c lowered it (400.00 without it)");
  ReportData full =
      build_report({{"s.a", entry(4)}, {"s.b", entry(4)}, {"s.c", entry(4)}}, weights, json(), 0, false, "");
  EXPECT_EQ(missing_effect_text(full), "");
}

TEST(JobsOptionsCheck, ContradictoryOrMeaninglessOptionsAreRefusedBeforeAnythingStarts) {
  const std::string dir = scratch_dir("contra");
  JobsOptions base = fake_suite(dir, R"({"a": {"experiment": "x", "timeout": 20}})");
  auto refused = [&](JobsOptions o, const std::string& text) {
    std::ostringstream out, err;
    EXPECT_EQ(run_jobs(o, out, err), 2) << text;
    EXPECT_NE(err.str().find(text), std::string::npos) << err.str();
  };
  JobsOptions o = base;
  o.min_duration_s = 30, o.max_duration_s = 5;
  refused(o, "error: --min-duration 30 is not below --max-duration 5: every run would time out");
  o = base;
  o.min_duration_s = 30;  // the profile's timeout 20
  refused(o, "error: --min-duration 30 is not below the \"timeout\" 20 of test \"a\"");
  o = base;
  o.devices = 0, o.devices_given = true;
  refused(o, "error: --devices must be at least 1 (got 0)");
  o = base;
  o.max_duration_s = 0, o.max_duration_given = true;
  refused(o, "error: --max-duration must be a positive number of seconds (got 0)");
  o = base;
  o.min_free_mb = 1e300;
  refused(o, "error: --min-free-mb must be a number of MiB from 0 to 1e+09");
  EXPECT_EQ(fake_calls(dir), 0);
  EXPECT_FALSE(fs::exists(base.outdir));
  ReportOptions r;
  r.input = dir;
  r.margin_pct = NAN, r.margin_given = true;  // --margin nan
  std::ostringstream out, err;
  EXPECT_EQ(run_report(r, out, err), 2);
  EXPECT_NE(err.str().find("--margin must be a percentage"), std::string::npos) << err.str();
}

TEST(JobsResume, AResumeWithoutTheSuitesRepeatSaysHowManyTheFolderHoldsAndHowToFinish) {
  const std::string dir = scratch_dir("repeats");
  JobsOptions o = fake_suite(dir, R"({"a": {"experiment": "x"}})");
  o.repeat = 3;
  o.extra_args = {"--fail"};  // every run fails for a reason one can fix
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 1);
  o.repeat = 1, o.extra_args = {}, o.resume = true;  // --resume without --repeat 3
  std::ostringstream out2, err2;
  EXPECT_EQ(run_jobs(o, out2, err2), 0) << err2.str();
  EXPECT_NE(err2.str().find("note: " + o.outdir +
                            " holds results of 3 repeats of these tests (2 of the later ones "
                            "failed for a reason you can fix); this --resume runs 1: add --repeat "
                            "3 to finish the suite"),
            std::string::npos)
      << err2.str();
  o.repeat = 3;
  std::ostringstream out3, err3;
  EXPECT_EQ(run_jobs(o, out3, err3), 0) << err3.str();
  EXPECT_EQ(fake_calls(dir), 6);  // 3 failed, J0.0 again, then J1.0 and J2.0
  EXPECT_EQ(err3.str().find("note:"), std::string::npos) << err3.str();
}

TEST(JobsFailFile, AFailFileOfJobsHoldsWhatRerunNeeds) {
  Profile p = parse_profile(R"({"t": {"experiment": "polynome", "arguments": {"--max-count": "1_000"}}})", "s.json");
  PlanInputs in;
  in.self_exe = "/bin/milarun";
  in.dataroot = "/data";
  in.outdir = "/out";
  in.devices = 1;
  in.cpu_partitions = {{0}};
  JobPlan plan = build_plan(p, in);
  ProcessResult r;
  r.started = true, r.timed_out = true;
  std::string why;
  auto rec = parse_result_record(failure_result(plan.waves[0][0], r), &why);
  ASSERT_TRUE(rec) << why;
  EXPECT_EQ(rec->experiment, "polynome");
  EXPECT_EQ(rec->dataroot, "/data");
  EXPECT_EQ(rec->arguments, (std::vector<std::string>{"--max-count", "1000"}));
  EXPECT_EQ(rec->job_id, "0.0");
  EXPECT_EQ(rec->pergpu_device(), "0");
}

// Issue 24 item 1: a run that skipped corrupt images did less work per example.
TEST(SkippedInputs, ARunPastTheShareIsAFailureAndBelowItIsShownBesideTheNumber) {
  const fs::path dir = result_dir("skipped");
  auto run = [](const std::string& job, double skipped) {
    json r = result_record("s.reso", job, "0", std::vector<double>(12, 20.0));
    r["metrics"]["images_skipped"] = skipped;
    r["timings"]["train"]["count"] = 1000;
    return r;
  };
  write_json(dir / "s.reso.J0.0.20260101-000000-000001.json", run("0.0", 5));   // 0.5%: counted
  write_json(dir / "s.reso.J1.0.20260101-000000-000001.json", run("1.0", 50));  // 4.8%: bad_data
  std::vector<std::string> warnings;
  json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.reso"]["n"], 2);
  EXPECT_EQ(summary["s.reso"]["failures"], 1);
  EXPECT_EQ(summary["s.reso"]["failure_kinds"]["bad_data"], 1);
  EXPECT_EQ(summary["s.reso"]["images_skipped"], 55);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("counted as failed (bad_data): it skipped 50 unreadable input(s), 4.8% of what it read"),
            std::string::npos)
      << warnings[0];
  std::ostringstream out;
  print_report(build_report(summary, json(), json(), 0, false, ""), out);
  EXPECT_NE(out.str().find("SKIPPED INPUTS: s.reso skipped 55 unreadable input(s) over its runs"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("by kind: bad_data 1"), std::string::npos) << out.str();
}

TEST(SkippedInputs, TheJobsLineSaysHowManyWereSkippedAndFailsARunPastTheShare) {
  const std::string dir = scratch_dir("skipped_jobs");
  JobsOptions o = fake_suite(dir, R"({"few": {"experiment": "x", "arguments": {"--skip": 3}},
                                          "many": {"experiment": "x", "arguments": {"--skip": 300}}})");
  // A run that read 1000 images and skipped --skip of them.
  o.self_exe =
      parsing_worker(dir, "fake3.sh",
                     "echo '{\"name\": \"'$n'\", \"success\": true, \"metrics\": {\"images_skipped\": '$k'}, "
                     "\"timings\": {\"train\": {\"count\": 1000}}}' > \"$o/$n.J$j.20260101-000000-000000.json\"\n");
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 1) << err.str();
  EXPECT_NE(out.str().find("mini.few J0.0 OK"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(3 input(s) skipped, 0.30% of what it read)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("mini.many J0.0 FAIL"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(bad_data: 300 input(s) skipped, 23.08% of what it read, over the 1% a run may skip"),
            std::string::npos)
      << out.str();
}

TEST(JobsLine, ARunStoppedAfterItWroteItsResultIsOkAsTheSummaryCountsIt) {
  const std::string dir = scratch_dir("late_stop");
  JobsOptions o = fake_suite(dir, R"({"late": {"experiment": "x"}})");
  // Writes a successful result, then dies as a run stopped by the suite's signal would.
  o.self_exe = parsing_worker(dir, "fake4.sh",
                              "echo '{\"name\": \"'$n'\", \"job_id\": \"'$j'\", \"success\": true}' > "
                              "\"$o/$n.J$j.20260101-000000-000000.json\"\nkill -KILL $$\n");
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("mini.late J0.0 OK"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(its result was written before it ended: killed by signal 9)"), std::string::npos)
      << out.str();
  int files = 0, fail_files = 0;
  for (const auto& f : fs::directory_iterator(o.outdir)) {
    files += f.path().extension() == ".json";
    fail_files += f.path().filename().string().find(".FAIL.") != std::string::npos;
  }
  EXPECT_EQ(files, 1);  // the run's own result, no FAIL file beside it
  EXPECT_EQ(fail_files, 0);
}

// Issue 24 item 9: a disk full with an unwritable TMPDIR: the run can only
// print its result in its log (exit 3). The suite says so, names -o and its
// free space, does not start the next test and says how to finish.
TEST(DiskFull, ARunThatCouldNotKeepItsResultStopsTheSuiteWithTheResumeHint) {
  const std::string dir = scratch_dir("parked");
  JobsOptions o = fake_suite(dir, R"({"first": {"experiment": "x"}, "second": {"experiment": "x"}})");
  o.self_exe = write_script(dir, "fake5.sh",
                            "echo \"$@\" >> \"" + dir +
                                "/calls\"\necho '{\"success\": true}'\necho 'milarun run: cannot write' >&2\nexit 3\n");
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 1) << out.str() << err.str();
  EXPECT_NE(out.str().find("mini.first J0.0 FAIL"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("its result could not be written to -o"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("mini.second"), std::string::npos) << out.str();  // the next test did not start
  EXPECT_NE(err.str().find("error: results could not be written to " + o.outdir + " ("), std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("MiB free there"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("--resume to finish the suite"), std::string::npos) << err.str();
  EXPECT_EQ(fake_calls(dir), 1);
}

// Issue 24 item 12: the pre-flight's batch (every test of the profile) goes
// on stdin; one argv word is capped at 128 KiB.
TEST(Preflight, ABatchOverTheArgvWordCapReachesTheCheckerWhole) {
  const std::string batch(300 * 1024, 'x');
  EXPECT_EQ(capture_output({"/bin/sh", "-c", "wc -c | tr -d ' '"}, batch), "307200\n");
  EXPECT_THROW(capture_output({"/bin/sh", "-c", "exit 3"}, batch), std::runtime_error);
  EXPECT_THROW(capture_output({"/nonexistent/check-args"}, ""), std::runtime_error);
}

TEST(JobsOutput, ALogFolderThatCannotBeMadeStopsTheSuiteBeforeAnyRun) {
  const std::string dir = scratch_dir("nologs");
  JobsOptions o = fake_suite(dir, R"({"a": {"experiment": "x"}})");
  fs::create_directories(o.outdir);
  write_text(o.outdir + "/logs", "a file in the way");
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 2);
  EXPECT_NE(err.str().find("error: cannot make the runs' log folder " + o.outdir + "/logs"), std::string::npos)
      << err.str();
  EXPECT_EQ(fake_calls(dir), 0);
}
