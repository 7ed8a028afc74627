// The HTML report as a reader sees it (issue 16): the score large with its
// interval, pass/fail and ratio; a context box from the results' facts;
// units in the headers; rate charts with axes, ticks, titles, legend and the
// summary window shaded; the ratio bar chart; the device x test matrix.
// Built from generated result files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/html.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "result_files.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace milabench;

namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

// The section with id `id`, "" when absent.
std::string section(const std::string& page, const std::string& id) {
  const auto b = page.find("<section id=\"" + id + "\">");
  if (b == std::string::npos) return "";
  return page.substr(b, page.find("</section>", b) - b);
}

std::string file_name(const std::string& test, int rep, int dev) {
  return test + ".J" + std::to_string(rep) + "." + std::to_string(dev) + ".20261203-1" + std::to_string(rep) +
         "0000-00000" + std::to_string(dev) + ".json";
}

// Two tests x two devices x two repeats; `speed` scales every rate.
fs::path results(const std::string& tag, double speed) {
  const fs::path d = test::result_dir(tag);
  for (const std::string test : {"lab.convnet", "lab.toy"})
    for (int dev = 0; dev < 2; ++dev)
      for (int rep = 0; rep < 2; ++rep) {
        std::vector<double> rates;
        for (int i = 0; i < 60; ++i) rates.push_back(speed * (i < 6 ? 40.0 : 100.0 + 3 * dev + (i * 7 + rep) % 5));
        json r = test::result_record(test, std::to_string(rep) + "." + std::to_string(dev), std::to_string(dev), rates);
        r["count_unit"] = test == "lab.convnet" ? "images" : "samples";
        r["inventory"] = {{"hostname", "node7"},   {"cpu_model", "Test CPU 9000"}, {"cpu_count", 2},
                          {"ram_mb", 8192.0},      {"gpus", json::array()},        {"driver", nullptr},
                          {"kernel", "Linux 6.1"}, {"libtorch_version", "2.6.0"}};
        r["isolation"] = {{"kind", "affinity"}, {"cpu_list", std::to_string(dev)}};
        r["dataset"] = {{"name", "mnist"}, {"synthetic", true}};
        test::write_json(d / file_name(test, rep, dev), r);
      }
  return d;
}

}  // namespace

TEST(HtmlPage, HeadlineContextUnitsChartsRatiosAndDevices) {
  const fs::path a = results("page_a", 1.0), b = results("page_b", 0.8);
  std::vector<std::string> warnings;
  test::write_json(b / "base.json", summarize_directory(b.string(), warnings));
  ReportOptions o;
  o.input = a.string();
  o.compare = (b / "base.json").string();
  o.compare_gpus = true;
  o.html = (a / "report.html").string();
  o.title = "Lab machine A";
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, out, err), 0) << err.str();
  const std::string page = milabench::test::read_text(o.html);

  // Headline: the score in the large class, its interval, PASS, the ratio.
  const std::string head = page.substr(page.find("<header id=\"headline\">"));
  EXPECT_NE(head.find("<div class=\"big\">"), std::string::npos);
  EXPECT_NE(head.find("score 95% CI ["), std::string::npos);
  EXPECT_NE(head.find("PASS"), std::string::npos);
  EXPECT_NE(head.find("Against the baseline"), std::string::npos);
  EXPECT_NE(head.find("1.250×"), std::string::npos) << "every rate is 1.25x the baseline's";

  const std::string ctx = section(page, "context");
  for (const char* fact : {"node7", "Test CPU 9000", "8.0 GiB", "Linux 6.1", "2.6.0", "mnist (synthetic)",
                           "affinity (cpus 0); affinity (cpus 1)", "2026-12-03 10:00:00 to 2026-12-03 11:00:00",
                           "<dt>Profile</dt><dd>lab</dd>", "<dt>GPUs</dt><dd>none</dd>"})
    EXPECT_NE(ctx.find(fact), std::string::npos) << fact << "\n" << ctx;
  EXPECT_NE(ctx.find("<dt>milarun</dt><dd><span class=\"small\">not recorded"), std::string::npos);

  const std::string table = section(page, "results");
  EXPECT_NE(table.find("perf<span class=\"u\">(count/s)</span>"), std::string::npos);
  EXPECT_NE(table.find("<td>images</td>"), std::string::npos);
  EXPECT_NE(table.find("<td>samples</td>"), std::string::npos);
  EXPECT_NE(table.find("ratio<span class=\"u\">(×)</span>"), std::string::npos);

  const std::string charts = section(page, "charts");
  EXPECT_EQ(count(charts, "<svg"), 2u);
  EXPECT_NE(charts.find("rate (images/s)"), std::string::npos) << "y axis title with the unit";
  EXPECT_NE(charts.find("rate (samples/s)"), std::string::npos);
  EXPECT_NE(charts.find("time since the start of measuring (s)"), std::string::npos);
  EXPECT_GE(count(charts, "class=\"tick ta-end\""), 8u) << "y ticks";
  EXPECT_GE(count(charts, "class=\"tick ta-mid\""), 8u) << "x ticks";
  EXPECT_EQ(count(charts, "<polyline"), 8u);
  for (const char* legend : {">device 0<", ">device 1 #2<", ">summary window<", ">warm-up<"})
    EXPECT_NE(charts.find(legend), std::string::npos) << legend;
  EXPECT_EQ(count(charts, "class=\"win\""), 4u) << "shaded window and its legend swatch, per chart";
  EXPECT_EQ(count(charts, "class=\"warm\""), 4u);

  const std::string ratios = section(page, "ratios");
  EXPECT_EQ(count(ratios, "class=\"bar "), 2u);
  EXPECT_GE(count(ratios, "class=\"whisk\""), 6u) << "an interval and its two caps per test";
  EXPECT_NE(ratios.find("baseline (1×)"), std::string::npos);

  const std::string devices = section(page, "devices");
  EXPECT_NE(devices.find("device 0<span class=\"u\">(×)</span>"), std::string::npos);
  EXPECT_EQ(count(devices, "<tr>"), 3u) << "a header and one row per test";
  EXPECT_NE(devices.find("<td class=\"m-good\">1.000</td>"), std::string::npos);

  EXPECT_FALSE(section(page, "evidence").empty());
  EXPECT_FALSE(section(page, "significance").empty());
  EXPECT_NE(page.find("@media print"), std::string::npos);
}

TEST(HtmlPage, RatioIntervalCombinesBothSides) {
  json a = {{"s.x", {{"n", 4}, {"failures", 0}, {"train", {{"n", 4}, {"mean", 200.0}, {"std", 10.0}}}}}};
  json b = {{"s.x", {{"n", 4}, {"failures", 0}, {"train", {{"n", 4}, {"mean", 100.0}, {"std", 5.0}}}}}};
  const ReportData d = build_report(a, json(), b, 0, false, "");
  const ReportRow& r = d.rows[0];
  ASSERT_TRUE(r.ratio_ci.valid());
  EXPECT_LT(r.ratio_ci.lo, 2.0);
  EXPECT_GT(r.ratio_ci.hi, 2.0);
  // Same relative spread on both sides: the log half-width is sqrt(2) times one side's.
  const double one = (std::log(r.ci.hi) - std::log(r.ci.lo)) / 2;
  EXPECT_NEAR((std::log(r.ratio_ci.hi) - std::log(r.ratio_ci.lo)) / 2, one * std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(r.ratio_ci.lo * r.ratio_ci.hi, 4.0, 1e-9) << "symmetric around the ratio on the log scale";
}

TEST(HtmlPage, FromASummaryFileTheContextIsTheInventory) {
  const fs::path a = results("page_summary", 1.0);
  std::vector<std::string> warnings;
  test::write_json(a / "sum.json", summarize_directory(a.string(), warnings));
  ReportOptions o;
  o.input = (a / "sum.json").string();
  o.html = (a / "report.html").string();
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, out, err), 0) << err.str();
  const std::string page = milabench::test::read_text(o.html);
  const std::string ctx = section(page, "context");
  EXPECT_NE(ctx.find("2.6.0"), std::string::npos) << ctx;
  EXPECT_NE(ctx.find("mnist (synthetic)"), std::string::npos);
  EXPECT_NE(ctx.find("<dt>Host</dt><dd><span class=\"small\">not recorded"), std::string::npos);
  EXPECT_NE(ctx.find("Pass the results directory"), std::string::npos);
  EXPECT_TRUE(section(page, "charts").empty());
  EXPECT_TRUE(section(page, "window").empty());
  EXPECT_TRUE(section(page, "ratios").empty());
  EXPECT_FALSE(section(page, "results").empty());
}
