// Issue 17's probes at the level of the readers and `milarun jobs`: each bad
// input is refused with one line naming the file, test and key, or counted
// for what it is; nothing is started and no result is lost or misplaced.
// The CLI half (exit codes, stderr) is tests/integration/bad_input_suite_test.sh.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "fake_worker.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "report/summary_check.hpp"
#include "result_files.hpp"
#include "results/input_checks.hpp"
#include "suite/jobs.hpp"
#include "suite/profile.hpp"

using namespace milabench;
using namespace milabench::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

int line_count(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

std::string profile_error(const std::string& text) {
  try {
    parse_profile(text, "p/standard.json");
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "";
}

json entry(double n, double failures, double mean, double sd) {
  return {{"n", n}, {"failures", failures}, {"train", {{"n", n - failures}, {"mean", mean}, {"std", sd}}}};
}

}  // namespace

TEST(SafeNames, PathSeparatorsDotsAndControlBytesAreNotNames) {
  EXPECT_EQ(unsafe_name_reason("standard.convnet_fp16"), "");
  EXPECT_EQ(unsafe_name_reason("scaling.2"), "");
  EXPECT_EQ(unsafe_name_reason("x/../../../escape"), "contains '/'");
  EXPECT_EQ(unsafe_name_reason(".."), "starts with '.'");
  EXPECT_EQ(unsafe_name_reason("-o"), "starts with '-'");
  EXPECT_EQ(unsafe_name_reason(""), "is empty");
  EXPECT_EQ(unsafe_name_reason("a\x1b[31m"), "contains the byte 0x1b");
  EXPECT_NE(unsafe_name_reason(std::string(129, 'a')), "");
}

TEST(SafeNames, TerminalTextKeepsUtf8AndDropsEscapes) {
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xe2\x80\x9cok\xe2\x80\x9d"), "caf\xc3\xa9 \xe2\x80\x9cok\xe2\x80\x9d");
  EXPECT_EQ(terminal_safe("\x1b[2Jx\x07"), "?[2Jx?");
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "31m"),
            "?31m");  // C1 CSI as UTF-8
  EXPECT_EQ(terminal_safe("\x9b"
                          "31m\xff"),
            "?31m?");  // raw bytes that are not UTF-8
}

TEST(ProfileProbes, EscapingNameEmptyProfileAndDuplicateKeysAreOneLine) {
  const std::string escape = profile_error(R"({"x/../../../escape": {"experiment": "polynome"}})");
  EXPECT_NE(escape.find("x/../../../escape"), std::string::npos) << escape;
  EXPECT_NE(escape.find("contains '/'"), std::string::npos) << escape;
  const std::string empty = profile_error("{}");
  EXPECT_NE(empty.find("no test"), std::string::npos) << empty;
  EXPECT_NE(profile_error(R"({"*": {"timeout": 5}})").find("no test"), std::string::npos);
  const std::string dup = profile_error(R"({"a": {"experiment": "x"}, "a": {"experiment": "y"}})");
  EXPECT_NE(dup.find("test \"a\" is defined twice"), std::string::npos) << dup;
  const std::string dup_arg =
      profile_error(R"({"a": {"experiment": "x", "arguments": {"--batch-size": 1, "--batch-size": 2}}})");
  EXPECT_NE(dup_arg.find("test \"a\": key \"--batch-size\" appears twice"), std::string::npos) << dup_arg;
  const std::string ansi = profile_error("{\"a\\u001b[31m\": {\"experiment\": \"x\"}}");
  EXPECT_EQ(ansi.find('\x1b'), std::string::npos) << ansi;
  EXPECT_NE(ansi.find("0x1b"), std::string::npos) << ansi;
  for (const auto& m : {escape, empty, dup, dup_arg, ansi}) EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(profile_error("{\"a\": {\"experiment\": \"x\"}, \"b\": {\"experiment\": \"x\"}}"), "");
}

TEST(ResultProbes, ZeroAndNegativeRatesAreFailuresNotSuccesses) {
  fs::path d = result_dir("rates");
  write_json(d / "s.zero.J0.json", result_record("s.zero", "0", "0", std::vector<double>(10, 0.0)));
  write_json(d / "s.neg.J0.json", result_record("s.neg", "0", "0", {5, 5, -634337, 5, 5, 5}));
  write_json(d / "s.ok.J0.json", result_record("s.ok", "0", "0", std::vector<double>(10, 50.0)));
  std::vector<std::string> warnings;
  json s = summarize_directory(d.string(), warnings);
  for (const char* bad : {"s.zero", "s.neg"}) {
    EXPECT_EQ(s[bad]["n"], 1) << bad;  // counted, not lost
    EXPECT_EQ(s[bad]["failures"], 1) << bad;
    EXPECT_EQ(s[bad]["failure_kinds"]["bad_result"], 1) << bad;
    EXPECT_TRUE(s[bad]["train"].is_null()) << bad;
  }
  EXPECT_EQ(s["s.ok"]["failures"], 0);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("s.neg.J0.json: counted as failed (bad_result): a rate is negative"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[1].find("throughput"), std::string::npos) << warnings[1];
}

TEST(ResultProbes, AHugeStrayFileIsSkippedBeforeItIsRead) {
  fs::path d = result_dir("huge");
  write_json(d / "s.ok.J0.json", result_record("s.ok", "0", "0", std::vector<double>(10, 50.0)));
  // A sparse 4 GiB file: no disk used, and reading it would take minutes.
  const std::string huge = (d / "x.json").string();
  int fd = ::open(huge.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 4ll << 30), 0);
  ::close(fd);
  std::vector<std::string> warnings;
  json s = summarize_directory(d.string(), warnings);
  EXPECT_EQ(s.size(), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("x.json: 4.0 GiB, over the 64.0 MiB limit for a result file"), std::string::npos)
      << warnings[0];
  std::ostringstream out, err;
  ReportOptions o;
  o.input = huge;  // the same file given as a summary: refused before it is read
  EXPECT_EQ(run_report(o, out, err), 2);
  EXPECT_NE(err.str().find("over the 16.0 MiB limit"), std::string::npos) << err.str();
  EXPECT_EQ(line_count(err.str()), 1) << err.str();
}

TEST(ResultProbes, AnsiInAResultNameNeverReachesTheTerminal) {
  fs::path d = result_dir("ansi");
  write_json(d / "evil.J0.json", result_record("x\x1b[2J", "0", "0", std::vector<double>(10, 50.0)));
  std::vector<std::string> warnings;
  json s = summarize_directory(d.string(), warnings);
  EXPECT_TRUE(s.empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].find('\x1b'), std::string::npos);
  EXPECT_NE(warnings[0].find("holds control characters"), std::string::npos) << warnings[0];
}

TEST(WeightsProbes, NonNumericNegativeAndAbsurdWeightsAreRefused) {
  EXPECT_EQ(weights_problem(json::parse(R"({"s.a": {"weight": 4}, "s.b": 0})"), "w.json"), "");
  const std::string heavy = weights_problem(json::parse(R"({"s.a": {"weight": "heavy"}})"), "w.json");
  EXPECT_NE(heavy.find("w.json: test \"s.a\": weight \"heavy\" is not a number"), std::string::npos) << heavy;
  const std::string neg = weights_problem(json::parse(R"({"s.a": {"weight": -8}})"), "w.json");
  EXPECT_NE(neg.find("-8 is negative"), std::string::npos) << neg;
  const std::string big = weights_problem(json::parse(R"({"s.a": {"weight": 1e308}})"), "w.json");
  EXPECT_NE(big.find("not a plausible value"), std::string::npos) << big;
  EXPECT_LT(big.size(), 200u);  // not 300 digits
  EXPECT_NE(
      weights_problem(json::parse(R"({"s.a": {"w": 1}})"), "w.json").find("unknown key \"w\" (known keys: weight)"),
      std::string::npos);
}

TEST(BaselineProbes, NegativeMeansAndMoreFailuresThanRunsAreRefused) {
  json ok = {{"s.a", entry(4, 1, 100, 5)}};
  EXPECT_EQ(summary_problem(ok, "b.json"), "");
  json all_failed = {{"s.a", {{"n", 2}, {"failures", 2}, {"train", nullptr}}}};
  EXPECT_EQ(summary_problem(all_failed, "b.json"), "");
  const std::string neg = summary_problem({{"s.a", entry(4, 0, -100, 5)}}, "b.json");
  EXPECT_NE(neg.find("b.json: test \"s.a\": \"train.mean\" -100.0 is not positive"), std::string::npos) << neg;
  const std::string zero = summary_problem({{"s.a", entry(4, 0, 0, 0)}}, "b.json");
  EXPECT_NE(zero.find("\"train.mean\""), std::string::npos) << zero;
  const std::string fails = summary_problem({{"s.a", entry(2, 5, 100, 5)}}, "b.json");
  EXPECT_NE(fails.find("5 failures out of 2 runs"), std::string::npos) << fails;
  const std::string nan = summary_problem({{"s.a", entry(4, 0, NAN, 5)}}, "b.json");
  EXPECT_NE(nan.find("\"train.mean\""), std::string::npos) << nan;
  const std::string absurd = summary_problem({{"s.a", entry(4, 0, 1e300, 5)}}, "b.json");
  EXPECT_NE(absurd.find("not a plausible value"), std::string::npos) << absurd;
  const std::string sd = summary_problem({{"s.a", entry(4, 0, 100, -1)}}, "b.json");
  EXPECT_NE(sd.find("\"train.std\""), std::string::npos) << sd;
  EXPECT_NE(summary_problem({{"s.a", entry(4, 0.5, 100, 1)}}, "b.json").find("whole number"), std::string::npos);
  // Every shipped baseline passes.
  for (const auto& dir : fs::directory_iterator(source_root() + "/baselines"))
    for (const auto& f : fs::directory_iterator(dir.path()))
      EXPECT_EQ(summary_problem(read_json_file(f.path().string()), f.path().string()), "");
  for (const auto& f : fs::directory_iterator(source_root() + "/weights"))
    EXPECT_EQ(weights_problem(read_json_file(f.path().string()), f.path().string()), "");
}

TEST(BaselineProbes, RunReportRefusesABadBaselineAndPriceZeroWithOneLine) {
  fs::path d = result_dir("badbase");
  write_json(d / "base.json", {{"s.a", entry(2, 5, 100, 5)}});
  write_json(d / "ours.json", {{"s.a", entry(2, 0, 100, 5)}});
  ReportOptions o;
  o.input = (d / "ours.json").string();
  o.compare = (d / "base.json").string();
  std::ostringstream out, err;
  EXPECT_EQ(run_report(o, out, err), 2);
  EXPECT_EQ(line_count(err.str()), 1) << err.str();
  EXPECT_NE(err.str().find("base.json: test \"s.a\""), std::string::npos) << err.str();
  EXPECT_TRUE(out.str().empty());
  ReportOptions p;
  p.input = o.input;
  p.price_given = true;  // --price 0
  std::ostringstream out2, err2;
  EXPECT_EQ(run_report(p, out2, err2), 2);
  EXPECT_NE(err2.str().find("--price"), std::string::npos);
}

// report.py: a weighted test without a result keeps its weight in the
// denominator and adds nothing to the sum.
TEST(PartialSuite, ScoreFollowsTheOriginalRuleAndTheCommonRatioIsLabelled) {
  json weights = {{"s.a", {{"weight", 2}}}, {"s.b", {{"weight", 1}}}, {"s.c", {{"weight", 1}}}};
  json ours = {{"s.a", entry(2, 0, 400, 0)}, {"s.b", entry(2, 0, 30, 0)}};
  json base = {{"s.a", entry(2, 0, 100, 0)}, {"s.b", entry(2, 0, 10, 0)}, {"s.c", entry(2, 0, 1000, 0)}};
  ReportData d = build_report(ours, weights, base, 0, false, "");
  EXPECT_EQ(d.weighted_tests, 3);
  EXPECT_EQ(d.covered_tests, 2);
  EXPECT_EQ(d.missing_tests, std::vector<std::string>{"s.c"});
  EXPECT_NEAR(d.score, std::exp((2 * std::log(400.0) + std::log(30.0)) / 4), 1e-9);
  EXPECT_NEAR(d.base_score, std::exp((2 * std::log(100.0) + std::log(10.0) + std::log(1000.0)) / 4), 1e-9);
  EXPECT_EQ(d.common_tests, 2);
  EXPECT_NEAR(d.common_score, std::exp((2 * std::log(400.0) + std::log(30.0)) / 3), 1e-9);
  EXPECT_NEAR(d.common_base_score, std::exp((2 * std::log(100.0) + std::log(10.0)) / 3), 1e-9);
  EXPECT_NEAR(d.common_ratio, std::exp((2 * std::log(4.0) + std::log(3.0)) / 3), 1e-9);
  std::ostringstream out;
  print_report(d, out);
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("PARTIAL SUITE: 2 of 3 weighted tests have a result (missing: s.c)", 0), 0u) << text;
  EXPECT_NE(text.find("common ratio"), std::string::npos) << text;
  EXPECT_NE(text.find("over the 2 weighted test(s) both sides have"), std::string::npos) << text;
  // A complete suite: no partial line, and the same score as before.
  ours["s.c"] = entry(2, 0, 1000, 0);
  ReportData full = build_report(ours, weights, base, 0, false, "");
  EXPECT_EQ(full.covered_tests, 3);
  std::ostringstream out2;
  print_report(full, out2);
  EXPECT_EQ(out2.str().find("PARTIAL"), std::string::npos);
  EXPECT_EQ(out2.str().find("common ratio"), std::string::npos);
}

TEST(JobsPreflight, ATypoInTheArgumentsStartsNothingAndNamesProfileTestAndFlag) {
  const std::string dir = scratch_dir("preflight");
  JobsOptions o = fake_suite(dir, R"({"a": {"experiment": "x"}, "b": {"experiment": "y"}})");
  o.extra_args = {"--batch-szie", "32"};
  std::vector<TestArguments> seen;
  o.preflight = [&](const std::vector<TestArguments>& tests, const std::string&) {
    seen = tests;
    std::string lines;
    for (const auto& t : tests) lines += t.test + "\tThe following argument was not expected: --batch-szie\n";
    return lines;
  };
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 2);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].experiment, "y");
  EXPECT_EQ(seen[0].arguments, (std::vector<std::string>{"--batch-szie", "32"}));
  EXPECT_NE(err.str().find("mini.json: test \"a\": The following argument was not expected: --batch-szie"),
            std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("test \"b\""), std::string::npos);
  EXPECT_EQ(fake_calls(dir), 0);
  EXPECT_FALSE(fs::exists(o.outdir));  // nothing started, nothing written
  o.preflight = [](const std::vector<TestArguments>&, const std::string&) -> std::string {
    throw std::runtime_error("milarun-torch check-args failed (status 256)");
  };
  std::ostringstream out2, err2;
  EXPECT_EQ(run_jobs(o, out2, err2), 2);  // a check that cannot run does not let the suite start
  EXPECT_EQ(fake_calls(dir), 0);
}

TEST(JobsResume, FixableFailuresRunAgainAndASecondResumeRunsNothing) {
  const std::string dir = scratch_dir("resume17");
  JobsOptions o = fake_suite(dir, R"({"a": {"experiment": "x"}, "b": {"experiment": "x"}})");
  o.extra_args = {"--fail"};
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 1);
  EXPECT_EQ(fake_calls(dir), 2);
  o.extra_args = {};  // the user fixes the arguments
  o.resume = true;
  std::ostringstream out2, err2;
  EXPECT_EQ(run_jobs(o, out2, err2), 0) << err2.str();
  EXPECT_EQ(fake_calls(dir), 4);
  EXPECT_NE(err2.str().find("0 run(s) already have a result and are skipped; 2 run(s) that failed for a reason you "
                            "can fix run again (bad_input 2; old files moved to"),
            std::string::npos)
      << err2.str();
  auto found = existing_results(o.outdir);
  ASSERT_EQ(found.size(), 2u);
  for (const auto& [key, r] : found) EXPECT_TRUE(r.success) << key.first;
  EXPECT_EQ(existing_results(o.outdir + "/superseded").size(), 2u);  // kept, not deleted
  std::ostringstream out3, err3;
  EXPECT_EQ(run_jobs(o, out3, err3), 0);
  EXPECT_EQ(fake_calls(dir), 4);  // complete: nothing runs
  EXPECT_NE(err3.str().find("2 run(s) already have a result and are skipped; 0 run(s)"), std::string::npos)
      << err3.str();
}

TEST(JobsResume, ResultsOfOtherArgumentsInTheFolderAreRefusedUnlessAskedFor) {
  const std::string dir = scratch_dir("mixed");
  JobsOptions o = fake_suite(dir, R"({"a": {"experiment": "x", "arguments": {"--batch-size": 32}}})");
  std::ostringstream out, err;
  EXPECT_EQ(run_jobs(o, out, err), 0) << err.str();
  write_text(o.profile, R"({"a": {"experiment": "x", "arguments": {"--batch-size": 64}}})");
  std::ostringstream out2, err2;
  EXPECT_EQ(run_jobs(o, out2, err2), 2);
  EXPECT_EQ(fake_calls(dir), 1);
  EXPECT_NE(err2.str().find("holds results of mini.a run with other arguments (--batch-size 32), not (--batch-size "
                            "64); use another -o, or --mixed-arguments"),
            std::string::npos)
      << err2.str();
  o.resume = true;  // --resume does not mix them either
  std::ostringstream out3, err3;
  EXPECT_EQ(run_jobs(o, out3, err3), 2);
  o.mixed_arguments = true;
  o.resume = false;
  std::ostringstream out4, err4;
  EXPECT_EQ(run_jobs(o, out4, err4), 0) << err4.str();
  EXPECT_EQ(fake_calls(dir), 2);
  EXPECT_EQ(existing_results(o.outdir).size(), 1u);  // same (name, job id): both files are there
  int files = 0;
  for (const auto& f : fs::directory_iterator(o.outdir)) files += f.path().extension() == ".json";
  EXPECT_EQ(files, 2);
}
