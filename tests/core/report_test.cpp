// Tests of src/report: perf, summary counting rules, scores, compare, HTML.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
