// Issue 24 item 5: misspelt keys, keys given twice and impossible values in
// profiles, weights and baselines are refused with one line each.
#include <gtest/gtest.h>

#include <sstream>

#include "report/report.hpp"
#include "report/summary.hpp"
#include "report/summary_check.hpp"
#include "result_files.hpp"
#include "results/json_keys.hpp"
#include "suite/profile.hpp"

using namespace milabench;
using namespace milabench::test;
using nlohmann::json;

namespace {

std::string profile_error(const std::string& text) {
  try {
    parse_profile(text, "p.json");
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "";
}

json stats(double n, double mean) { return {{"n", n}, {"min", mean}, {"max", mean}, {"mean", mean}, {"std", 0}}; }

}  // namespace

TEST(ProfileKeys, AMisspeltKeyIsRefusedNamingTheClosestKnownKey) {
  EXPECT_EQ(profile_error(R"({"t": {"experiment": "x", "argumnets": {"--max-count": 10}}})"),
            "p.json: test \"t\": unknown key \"argumnets\": did you mean \"arguments\"?");
  EXPECT_EQ(profile_error(R"({"t": {"experiment": "x", "timout": 5}})"),
            "p.json: test \"t\": unknown key \"timout\": did you mean \"timeout\"?");
  EXPECT_EQ(profile_error(R"({"*": {"exec-prefix": []}, "t": {"experiment": "x"}})"),
            "p.json: test \"*\": unknown key \"exec-prefix\": did you mean \"exec_prefix\"?");
  EXPECT_EQ(profile_error(R"({"t": {"experiment": "x", "partition_scheme": {"tpye": "per-gpu"}}})"),
            "p.json: test \"t\": partition_scheme: unknown key \"tpye\": did you mean \"type\"?");
  // Nothing close: the known keys are listed.
  EXPECT_NE(profile_error(R"({"t": {"experiment": "x", "color": "red"}})")
                .find("unknown key \"color\" (known keys: experiment, arguments, prepare, exec_prefix, "
                      "partition_scheme, timeout)"),
            std::string::npos);
  EXPECT_EQ(profile_error(R"({"t": {"experiment": "x", "timeout": 5}})"), "");
}

TEST(ReportInputKeys, WeightsWithAKeyTwiceOrMisspeltAreRefused) {
  const auto dir = result_dir("weights_keys");
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json",
             result_record("s.a", "0.0", "0", std::vector<double>(12, 9)));
  write_text(dir / "w.json", R"({"s.a": {"weight": 1}, "s.a": {"weight": 5}})");
  ReportOptions r;
  r.input = dir.string();
  r.weights = (dir / "w.json").string();
  std::ostringstream out, err;
  EXPECT_EQ(run_report(r, out, err), 2);
  EXPECT_NE(err.str().find("w.json: key \"s.a\" appears twice — keep one"), std::string::npos) << err.str();
  write_text(dir / "w.json", R"({"s.a": {"wieght": 1}})");
  std::ostringstream out2, err2;
  EXPECT_EQ(run_report(r, out2, err2), 2);
  EXPECT_NE(err2.str().find("w.json: test \"s.a\": unknown key \"wieght\": did you mean \"weight\"?"),
            std::string::npos)
      << err2.str();
  write_text(dir / "b.json", R"({"s.a": {"n": 2, "failures": 0, "train": {"n": 2, "mean": 1, "mean": 9}}})");
  r.weights.clear();
  r.compare = (dir / "b.json").string();
  std::ostringstream out3, err3;
  EXPECT_EQ(run_report(r, out3, err3), 2);
  EXPECT_NE(err3.str().find("b.json: key \"mean\" appears twice in \"s.a.train\""), std::string::npos) << err3.str();
}

TEST(ReportInputKeys, ImpossibleBaselineValuesAreRefused) {
  EXPECT_EQ(summary_problem({{"s.a", {{"n", 0}, {"failures", 0}, {"train", stats(2, 50)}}}}, "b.json"),
            "b.json: test \"s.a\": a \"train\" mean with \"n\" 0 (no run) (fix or regenerate it with milarun summary)");
  EXPECT_NE(summary_problem({{"s.a", {{"n", 3}, {"failures", 3}, {"train", stats(2, 50)}}}}, "b.json")
                .find("a \"train\" mean although all 3 runs failed"),
            std::string::npos);
  EXPECT_NE(summary_problem({{"s.a", {{"n", 3}, {"failures", 0}, {"train", stats(0, 50)}}}}, "b.json")
                .find("\"train.n\" is 0, yet it has a mean"),
            std::string::npos);
  EXPECT_NE(summary_problem({{"s.a", {{"n", 3}, {"failures", 0}, {"trian", stats(3, 50)}}}}, "b.json")
                .find("unknown key \"trian\": did you mean \"train\"?"),
            std::string::npos);
  EXPECT_EQ(summary_problem({{"s.a", {{"n", 3}, {"failures", 1}, {"train", stats(2, 50)}}}}, "b.json"), "");
}

TEST(ReportInputKeys, TheShippedBaselinesAndASummaryOfOurOwnPass) {
  for (const char* f : {"standard/v100.json", "standard/rtx8000.json", "5gb/v100.json", "10gb/v100-nocg.json"}) {
    const std::string path = source_root() + "/baselines/" + f;
    EXPECT_EQ(summary_problem(read_json_file(path, kMaxInputFileBytes), path), "") << f;
  }
  const auto dir = result_dir("own_summary");
  json a = result_record("s.a", "0.0", "0", std::vector<double>(12, 9));
  a["arguments"] = {"--x", "1"};
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", a);
  write_json(dir / "s.a.J0.0.20260101-000000-000002.json", a);  // flagged, still a valid summary
  std::vector<std::string> warnings;
  EXPECT_EQ(summary_problem(summarize_directory(dir.string(), warnings), "s.json"), "");
}

TEST(JsonKeys, NearestKnownKeyIsATypoOnly) {
  EXPECT_EQ(nearest_known("argumnets", {"arguments", "timeout"}), "arguments");
  EXPECT_EQ(nearest_known("Timeout", {"arguments", "timeout"}), "timeout");
  EXPECT_EQ(nearest_known("n", {"mean", "std"}), "");
  EXPECT_EQ(nearest_known("zzzzzzzz", {"arguments", "timeout"}), "");
}

TEST(ReportInputKeys, ADirectoryGivenAsAProfileOrABaselineIsNamedAsOne) {
  const auto dir = result_dir("dir_as_file");
  try {
    load_profile(dir.string());
    ADD_FAILURE() << "a directory loaded as a profile";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find(": a directory, not a profile; pass the JSON file itself"), std::string::npos)
        << e.what();
  }
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json",
             result_record("s.a", "0.0", "0", std::vector<double>(12, 9)));
  ReportOptions r;
  r.input = dir.string();
  r.compare = dir.string();
  std::ostringstream out, err;
  EXPECT_EQ(run_report(r, out, err), 2);
  EXPECT_NE(err.str().find("a directory, not this file; pass the JSON file itself"), std::string::npos) << err.str();
}

TEST(ReportInputKeys, ANanOrStringRateIsAFailureWithItsLine) {
  const auto dir = result_dir("nan_rate");
  json a = result_record("s.a", "0.0", "0", std::vector<double>(12, 9));
  a["timings"]["train"]["rates"][11] = "fast";
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", a);
  std::vector<std::string> warnings;
  json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.a"]["failure_kinds"]["bad_result"], 1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("counted as failed (bad_result): a rate is not a finite number"), std::string::npos);
}

TEST(ReportInputKeys, ASuccessWithoutTimingsIsAFailureWithItsLine) {
  const auto dir = result_dir("no_timings");
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", json{{"name", "s.a"}, {"job_id", "0.0"}, {"success", true}});
  std::vector<std::string> warnings;
  json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.a"]["failure_kinds"]["bad_result"], 1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("s.a.J0.0.20260101-000000-000001.json: counted as failed (bad_result): it says success "
                             "but has no \"train\" timings with rates"),
            std::string::npos)
      << warnings[0];
}

TEST(ReportInputKeys, AResultOfAnotherSchemaVersionIsSkippedWithItsLine) {
  const auto dir = result_dir("schema");
  json a = result_record("s.a", "0.0", "0", std::vector<double>(12, 9)), b = a, c = a;
  a["schema_version"] = 99;
  b["schema_version"] = "2";
  c["schema_version"] = 2;
  write_json(dir / "s.a.J0.0.20260101-000000-000001.json", a);
  write_json(dir / "s.a.J0.1.20260101-000000-000001.json", b);
  write_json(dir / "s.a.J0.2.20260101-000000-000001.json", c);
  std::vector<std::string> warnings;
  json summary = summarize_directory(dir.string(), warnings);
  EXPECT_EQ(summary["s.a"]["n"], 1);  // only the version-2 file
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("schema_version 99 is not one this milarun reads"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("schema_version \"2\" is not one this milarun reads"), std::string::npos) << warnings[1];
}
