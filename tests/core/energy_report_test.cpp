// Energy per example and examples per watt: summarised and reported only for
// runs whose power was measured.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/report.hpp"
#include "report/report_data.hpp"
#include "report/summary.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace milabench;

namespace {

// A successful result at a steady 100 examples/s; `energy_j` < 0 = power not measured.
json run(const std::string& job, double energy_j) {
  json monitor = {{"duration_s", 10.0},
                  {"power_measured", energy_j >= 0},
                  {"energy_j", energy_j >= 0 ? json(energy_j) : json(nullptr)}};
  return {{"name", "cpu.toy"},
          {"job_id", job},
          {"success", true},
          {"device", "0"},
          {"timings", {{"train", {{"rates", std::vector<double>(24, 100.0)}, {"count", 1000}}}}},
          {"monitor", monitor}};
}

}  // namespace

TEST(EnergyReport, SummaryHasEnergyOnlyFromMeasuredRuns) {
  // 500 J over 10 s = 50 W; 1000 examples -> 0.5 J/example; 100 ex/s / 50 W = 2 ex/W.
  auto d = test::folder_of_results("energy_test", {run("0.0", 500.0), run("0.1", -1)});
  std::vector<std::string> warnings;
  json s = summarize_directory(d.string(), warnings);
  ASSERT_TRUE(s["cpu.toy"].contains("energy"));
  EXPECT_EQ(s["cpu.toy"]["energy"]["joules_per_example"]["n"], 1);
  EXPECT_DOUBLE_EQ(s["cpu.toy"]["energy"]["joules_per_example"]["mean"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(s["cpu.toy"]["energy"]["examples_per_watt"]["mean"].get<double>(), 2.0);
  ReportOptions o;
  o.input = d.string();
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("J/example"), std::string::npos) << out.str();
  o.html = (d / "report.html").string();
  ASSERT_EQ(run_report(o, out, err), 0) << err.str();
  std::ifstream html(o.html);
  std::stringstream page;
  page << html.rdbuf();
  EXPECT_NE(page.str().find("<th>examples/W</th>"), std::string::npos);
  fs::remove_all(d);
}

TEST(EnergyReport, NoEnergyTableWithoutPowerMeasurements) {
  auto d = test::folder_of_results("energy_test", {run("0.0", -1)});
  std::vector<std::string> warnings;
  json s = summarize_directory(d.string(), warnings);
  EXPECT_FALSE(s["cpu.toy"].contains("energy"));
  ReportOptions o;
  o.input = d.string();
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, out, err), 0) << err.str();
  EXPECT_EQ(out.str().find("J/example"), std::string::npos);
  fs::remove_all(d);
}
