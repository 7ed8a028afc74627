// Tests of src/report: perf, summary counting rules, scores, compare, HTML.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/export.hpp"
#include "report/html.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "result_files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace milabench;

namespace {

using test::result_dir;
using test::source_root;
using test::write_text;

json result(const std::string& name, const json& job_id, const json& device, std::vector<double> rates,
            bool success = true) {
  return test::result_record(name, job_id, device, rates, success);
}
void write(const fs::path& p, const json& j) { test::write_json(p, j); }

// The line of `text` that starts with `label`, "" when none.
std::string line_of(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(label, 0) == 0) return line;
  return "";
}

std::vector<double> ramp(int n, double base = 0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(base + i);
  return v;
}

}  // namespace

TEST(Perf, LastTwentyWithoutLastTwo) {
  // 30 rates 0..29: rates[-20:-2] = 10..27, mean 18.5.
  EXPECT_DOUBLE_EQ(perf_of_rates(ramp(30)), 18.5);
  // 5 rates: rates[-20:-2] = first 3.
  EXPECT_DOUBLE_EQ(perf_of_rates({1, 2, 3, 100, 100}), 2.0);
  EXPECT_DOUBLE_EQ(perf_of_rates({4, 100, 100}), 4.0);
  EXPECT_TRUE(std::isnan(perf_of_rates({1, 2})));
  EXPECT_TRUE(std::isnan(perf_of_rates({})));
}

TEST(Stats, PopulationStd) {
  json s = compute_stats({1, 2, 3, 4});
  EXPECT_EQ(s["n"], 4);
  EXPECT_DOUBLE_EQ(s["mean"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(s["std"].get<double>(), std::sqrt(1.25));
  EXPECT_TRUE(compute_stats({}).is_null());
}

TEST(Summary, CountsFailuresAndSkips) {
  fs::path d = result_dir("fail");
  write(d / "t.a.J0.0.json", result("s.t", "0.0", "0", ramp(30)));
  write(d / "t.b.J0.1.FAIL.json", result("s.t", "0.1", "1", ramp(30), false));
  json nan_metric = result("s.t", "0.2", "2", ramp(30));
  nan_metric["metrics"]["loss"] = "NaN";
  write(d / "t.c.json", nan_metric);
  write_text(d / "t.d.json", "{\"name\":\"s.t\",\"job_id\":\"0.3\",\"success\":true,\"device\":\"3\","
                        "\"metrics\":{\"loss\":NaN},\"timings\":{\"train\":{\"rates\":[1,2,3,4]}}}");
  write(d / "t.e.json", result("s.t", "0.4", "4", {1.0, 2.0}));  // too few rates
  json sub = result("s.t", "0.5", "5", ramp(30));
  sub["subjob"] = true;
  write(d / "t.f.json", sub);
  write(d / "t.g.json", result("s.t", nullptr, "6", ramp(30)));
  json nojob = result("s.t", "x", "7", ramp(30));
  nojob.erase("job_id");
  write(d / "t.h.json", nojob);
  write_text(d / "junk.json", "{not json");
  write_text(d / "notes.txt", "ignored");

  std::vector<std::string> warnings;
  json s = summarize_directory(d.string(), warnings);
  ASSERT_TRUE(s.contains("s.t"));
  EXPECT_EQ(s["s.t"]["n"], 5);
  EXPECT_EQ(s["s.t"]["failures"], 4);
  EXPECT_EQ(s["s.t"]["train"]["n"], 1);
  EXPECT_DOUBLE_EQ(s["s.t"]["train"]["mean"].get<double>(), 18.5);
  EXPECT_EQ(s["s.t"]["total"]["n"], 1);  // program times of successful runs only (report.py)
  EXPECT_DOUBLE_EQ(s["s.t"]["peak_memory"].get<double>(), 100.0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("junk.json"), std::string::npos);
  fs::remove_all(d);
}

TEST(Summary, PergpuGroupingAndMemory) {
  fs::path d = result_dir("pergpu");
  for (int run = 0; run < 2; ++run)
    for (int dev = 0; dev < 2; ++dev) {
      json r = result("s.v", std::to_string(run) + "." + std::to_string(dev), std::to_string(dev),
                      ramp(30, dev * 100 + run));
      r["gpu_monitor"] = {{std::to_string(dev), {{"memory", {{"min", 1}, {"mean", 2}, {"max", 500 + dev}}}}}};
      r["timings"]["train_1"] = {{"rates", ramp(30, 1000)}};
      write(d / ("v" + std::to_string(run) + std::to_string(dev) + ".json"), r);
    }
  write(d / "p.json", result("s.scaling.2", "0", "0,1", ramp(30)));
  write(d / "q.json", result("s.nodev", "0.0", nullptr, ramp(30)));
  std::vector<std::string> w;
  json s = summarize_directory(d.string(), w);
  EXPECT_TRUE(w.empty());
  json v = s["s.v"];
  EXPECT_EQ(v["train"]["n"], 8);  // train + train_1 of 4 runs
  EXPECT_EQ(v["pergpu"].size(), 2u);
  EXPECT_EQ(v["pergpu"]["1"]["n"], 4);
  EXPECT_DOUBLE_EQ(v["pergpu"]["1"]["min"].get<double>(), 118.5);
  EXPECT_DOUBLE_EQ(v["pergpu"]["0"]["max"].get<double>(), 1018.5);
  EXPECT_DOUBLE_EQ(v["peak_memory"].get<double>(), 501.0);
  EXPECT_TRUE(s["s.scaling.2"]["pergpu"].empty());
  EXPECT_TRUE(s["s.nodev"]["pergpu"].empty());
  fs::remove_all(d);
}

TEST(Score, BaselineStandardV100MatchesIndependentFormula) {
  const std::string root = source_root();
  json base = read_json_file(root + "/baselines/standard/v100.json");
  json weights = read_json_file(root + "/weights/standard.json");
  // Independent computation of the score.
  double sw = 0, swl = 0;
  for (const auto& [name, e] : base.items()) {
    double perf = e["train"]["mean"], sd = e["train"]["std"];
    double adj = perf * (1 - sd / perf) * (1 - e["failures"].get<double>() / e["n"].get<double>());
    double wt = weights[name]["weight"];
    sw += wt;
    swl += wt * std::log(adj);
  }
  const double expected = std::exp(swl / sw);
  ReportData d = build_report(base, weights, json(), 0, false, "");
  EXPECT_NEAR(d.score, expected, 1e-9 * expected);
  EXPECT_TRUE(d.failure_pass);
  EXPECT_EQ(d.rows.size(), base.size());
}

TEST(Score, EveryBaselineIsFinite) {
  const std::string root = source_root();
  int count = 0;
  for (const auto& dir : fs::directory_iterator(root + "/baselines")) {
    json weights = read_json_file(root + "/weights/" + dir.path().filename().string() + ".json");
    for (const auto& f : fs::directory_iterator(dir.path())) {
      ReportData d = build_report(read_json_file(f.path().string()), weights, json(), 0, false, "");
      EXPECT_TRUE(std::isfinite(d.score) && d.score > 0) << f.path();
      ++count;
    }
  }
  EXPECT_GE(count, 12);
}

TEST(Report, CompareRatiosAndText) {
  json a = {{"s.x", {{"n", 4}, {"failures", 1}, {"train", {{"mean", 200.0}, {"std", 20.0}}}, {"pergpu", json::object()}}},
            {"s.y", {{"n", 2}, {"failures", 0}, {"train", {{"mean", 50.0}, {"std", 0.0}}}, {"pergpu", json::object()}}}};
  json b = {{"s.x", {{"n", 4}, {"failures", 0}, {"train", {{"mean", 100.0}, {"std", 10.0}}}}},
            {"s.y", {{"n", 2}, {"failures", 0}, {"train", {{"mean", 100.0}, {"std", 0.0}}}}}};
  ReportData d = build_report(a, json(), b, 10.0, false, "t");
  ASSERT_EQ(d.rows.size(), 2u);
  const ReportRow& x = d.rows[0];
  EXPECT_EQ(x.name, "s.x");
  EXPECT_DOUBLE_EQ(x.std_pct, 10.0);
  EXPECT_DOUBLE_EQ(x.perf_adj, 200.0 * 0.9 * 0.75);
  EXPECT_DOUBLE_EQ(x.perf_ratio, 2.0);
  EXPECT_DOUBLE_EQ(x.perf_base_adj, 90.0);
  EXPECT_DOUBLE_EQ(x.perf_ratio_adj, 135.0 / 90.0);
  EXPECT_DOUBLE_EQ(d.rows[1].perf_ratio, 0.5);
  EXPECT_DOUBLE_EQ(d.score, std::sqrt(135.0 * 50.0));
  EXPECT_DOUBLE_EQ(d.base_score, std::sqrt(90.0 * 100.0));
  EXPECT_NEAR(d.score_ratio, d.score / d.base_score, 1e-12);
  EXPECT_DOUBLE_EQ(d.failure_rate, 1.0 / 6.0);
  EXPECT_FALSE(d.failure_pass);
  std::ostringstream out;
  print_report(d, out);
  EXPECT_NE(out.str().find("perf_ratio_adj"), std::string::npos);
  EXPECT_NE(out.str().find("FAIL"), std::string::npos);
  EXPECT_NE(out.str().find("RPP (Price / Score):"), std::string::npos);
  EXPECT_NE(out.str().find("Score (baseline):"), std::string::npos);
  EXPECT_NE(out.str().find("Ratio:"), std::string::npos);
  EXPECT_NE(out.str().find("Failure rate:"), std::string::npos);
  EXPECT_NE(out.str().find("Price ($):"), std::string::npos);
}

TEST(Report, CompareGpus) {
  json a = {{"s.x", {{"n", 2}, {"failures", 0}, {"train", {{"mean", 150.0}, {"std", 50.0}}},
                     {"pergpu", {{"0", {{"mean", 100.0}, {"min", 90.0}, {"max", 110.0}}},
                                 {"1", {{"mean", 200.0}, {"min", 180.0}, {"max", 110.0}}}}}}}};
  ReportData d = build_report(a, json(), json(), 0, true, "");
  ASSERT_EQ(d.gpus.size(), 3u);
  EXPECT_EQ(d.gpus[0].stat, "mean");
  EXPECT_DOUBLE_EQ(d.gpus[0].devices[0].second, 0.5);
  EXPECT_DOUBLE_EQ(d.gpus[0].devices[1].second, 1.0);
  EXPECT_DOUBLE_EQ(d.gpus[2].devices[0].second, 1.0);
}

TEST(Report, RunReportExitCodes) {
  std::ostringstream out, err;
  ReportOptions o;
  o.input = "/nonexistent/dir";
  EXPECT_EQ(run_report(o, out, err), 2);
  EXPECT_NE(err.str().find("/nonexistent/dir"), std::string::npos);
  fs::path d = result_dir("codes");
  write_text(d / "bad.json", "[1,2");
  o.input = (d / "bad.json").string();
  EXPECT_EQ(run_report(o, out, err), 2);
  o.input = source_root() + "/baselines/standard/v100.json";
  o.weights = (d / "bad.json").string();
  EXPECT_EQ(run_report(o, out, err), 2);
  o.weights = source_root() + "/weights/standard.json";
  o.compare = source_root() + "/baselines/standard/rtx8000.json";
  o.compare_gpus = true;
  o.price = 9000;
  std::ostringstream ok;
  EXPECT_EQ(run_report(o, ok, err), 0);
  EXPECT_NE(ok.str().find("standard.vae"), std::string::npos);
  fs::remove_all(d);
}

TEST(Report, SummaryThenReportFromDirectoryWithHtml) {
  fs::path d = result_dir("html");
  const std::string evil = "s.<script>alert(1)</script>\"'&";
  for (int i = 0; i < 3; ++i)
    write(d / ("r" + std::to_string(i) + ".json"), result(evil, "0." + std::to_string(i), std::to_string(i), ramp(2000)));
  std::ostringstream out, err;
  fs::path sum = d / "summary.out";
  EXPECT_EQ(run_summary(d.string(), sum.string(), out, err), 0);
  json s = read_json_file(sum.string());
  EXPECT_EQ(s[evil]["n"], 3);
  fs::remove(sum);

  ReportOptions o;
  o.input = d.string();
  o.html = (d / "report.html").string();
  o.title = "<script>x</script>";
  o.compare_gpus = true;
  EXPECT_EQ(run_report(o, out, err), 0) << err.str();
  std::ifstream f(o.html);
  std::stringstream html;
  html << f.rdbuf();
  const std::string page = html.str();
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"), std::string::npos);
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("<polyline"), std::string::npos);
  // At most ~500 points per polyline.
  auto p = page.find("points=\"");
  auto e = page.find('"', p + 8);
  std::string pts = page.substr(p + 8, e - p - 8);
  EXPECT_LE(std::count(pts.begin(), pts.end(), ','), 501);
  EXPECT_EQ(std::string(html_escape("<a href='x'>&\"")), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
  fs::remove_all(d);
}

// The original's report.py takes np.log(perf_adj): a test whose perf_adj is
// clamped to 0 (std >= perf) makes the score exp(-inf) = 0. It has a result
// (not missing), and the report says which test zeroed the score and why.
TEST(Score, AClampedPerfAdjMakesTheOriginalsScoreZero) {
  json s = {{"s.a", {{"n", 2}, {"failures", 0}, {"train", {{"mean", 1000.0}, {"std", 50.0}}}}},
            {"s.b", {{"n", 2}, {"failures", 0}, {"train", {{"mean", 200.0}, {"std", 300.0}}}}}};
  json w = {{"s.a", {{"weight", 1}}}, {"s.b", {{"weight", 1}}}};
  ReportData d = build_report(s, w, json(), 0, false, "");
  EXPECT_DOUBLE_EQ(d.rows[1].perf_adj, 0.0);
  EXPECT_EQ(d.score, 0.0) << "was sqrt(950) = 30.82 when the clamped test counted as missing";
  EXPECT_EQ(d.covered_tests, 2);
  EXPECT_TRUE(d.missing_tests.empty());
  EXPECT_EQ(d.zero_tests, std::vector<std::string>{"s.b"});
  EXPECT_FALSE(d.score_ci.valid());
  std::ostringstream out;
  print_report(d, out);
  EXPECT_EQ(out.str().find("PARTIAL SUITE"), std::string::npos) << out.str();
  std::string score = line_of(out.str(), "Score:");
  EXPECT_NE(score.find(" 0.00  (0 because perf_adj is 0 for s.b (std >= perf"), std::string::npos) << out.str();
  EXPECT_NE(score.find("takes log(0) = -inf)"), std::string::npos) << score;
  EXPECT_NE(render_html(d, nullptr).find("score 0 because perf_adj is 0 for s.b"), std::string::npos);
  EXPECT_NE(table_markdown(d).find("**score**: 0.00 (0 because perf_adj is 0 for s.b"), std::string::npos);

  // A clamped test of weight 0 is outside the score, as in report.py (0 * -inf is NaN, which its sum skips).
  json w0 = {{"s.a", {{"weight", 1}}}, {"s.b", {{"weight", 0}}}};
  ReportData d0 = build_report(s, w0, json(), 0, false, "");
  EXPECT_DOUBLE_EQ(d0.score, 950.0);
  EXPECT_TRUE(d0.zero_tests.empty());
  EXPECT_TRUE(d0.score_zero_why.empty());

  // The baseline's side follows the same rule (perf_base_adj = perf - min(std, perf)).
  json good = {{"s.a", {{"n", 2}, {"failures", 0}, {"train", {{"mean", 400.0}, {"std", 0.0}}}}},
               {"s.b", {{"n", 2}, {"failures", 0}, {"train", {{"mean", 100.0}, {"std", 0.0}}}}}};
  ReportData c = build_report(good, w, s, 0, false, "");
  EXPECT_DOUBLE_EQ(c.score, 200.0);
  EXPECT_EQ(c.base_score, 0.0);
  EXPECT_EQ(c.base_zero_tests, std::vector<std::string>{"s.b"});
  std::ostringstream cout_;
  print_report(c, cout_);
  EXPECT_NE(line_of(cout_.str(), "Score (baseline):").find(" 0.00  (0 because perf_adj is 0 for s.b"),
            std::string::npos)
      << cout_.str();
  EXPECT_TRUE(c.score_zero_why.empty());
}

TEST(Score, SuiteScoreKeepsAMissingTestsWeightAndZeroesOnAZero) {
  std::map<std::string, double> w = {{"a", 1}, {"b", 1}};
  EXPECT_DOUBLE_EQ(suite_score(w, {{"a", 100.0}}), 10.0);  // b missing: exp(log(100) / 2)
  EXPECT_DOUBLE_EQ(suite_score(w, {{"a", 100.0}, {"b", NAN}}), 10.0);
  EXPECT_EQ(suite_score(w, {{"a", 100.0}, {"b", 0.0}}), 0.0);
  EXPECT_TRUE(std::isnan(suite_score({}, {{"a", 1.0}})));
}
