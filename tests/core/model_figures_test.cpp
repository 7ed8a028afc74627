// MFU and peak memory (the 2026 workloads' metrics.mfu / metrics.peak_memory):
// carried by the summary's "model" entry to the report's model figures table,
// and absent for tests whose results do not record them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/report.hpp"
#include "report/summary.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace milabench;

namespace {

// A successful gpt2-like result at a steady 1000 tokens/s with the given metrics.
json run(const std::string& name, const std::string& job, const json& metrics) {
  return {{"name", name},
          {"job_id", job},
          {"success", true},
          {"device", "0"},
          {"count_unit", "tokens"},
          {"timings", {{"train", {{"rates", std::vector<double>(24, 1000.0)}, {"count", 10000}}}}},
          {"metrics", metrics}};
}

json gpu_metrics(double mfu, double bytes) {
  return {{"mfu", {{"value", mfu}, {"peak", "H100 SXM dense bf16"}, {"flops_per_unit", 7.6e8}}},
          {"peak_memory", {{"bytes", bytes}, {"source", "cuda_caching_allocator_peak"}}}};
}

std::string report_text(const fs::path& d, const std::string& html = "") {
  ReportOptions o;
  o.input = d.string();
  o.html = html;
  std::ostringstream out, err;
  EXPECT_EQ(run_report(o, out, err), 0) << err.str();
  return out.str();
}

}  // namespace

TEST(ModelFigures, SummaryMeansTheMfuAndKeepsTheLargestPeakMemory) {
  auto d = test::folder_of_results("model_figures_test", {run("2026.gpt2", "0.0", gpu_metrics(0.40, 2.0 * 1048576)),
                                                          run("2026.gpt2", "0.1", gpu_metrics(0.50, 3.0 * 1048576))});
  std::vector<std::string> warnings;
  json s = summarize_directory(d.string(), warnings);
  const json& m = s["2026.gpt2"]["model"];
  EXPECT_EQ(m["mfu"]["n"], 2);
  EXPECT_NEAR(m["mfu"]["mean"].get<double>(), 0.45, 1e-12);
  EXPECT_EQ(m["mfu_peak"], "H100 SXM dense bf16");
  EXPECT_DOUBLE_EQ(m["peak_memory_bytes"].get<double>(), 3.0 * 1048576);
  EXPECT_EQ(m["peak_memory_source"], "cuda_caching_allocator_peak");
  const std::string text = report_text(d, (d / "r.html").string());
  EXPECT_NE(text.find("model figures"), std::string::npos) << text;
  EXPECT_NE(text.find("45.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("tokens/s"), std::string::npos) << text;
  std::ifstream html(d / "r.html");
  std::stringstream page;
  page << html.rdbuf();
  EXPECT_NE(page.str().find("<th>MFU</th>"), std::string::npos);
  EXPECT_NE(page.str().find("<td>45.0%</td>"), std::string::npos);
  fs::remove_all(d);
}

TEST(ModelFigures, ACpuRunShowsWhyItHasNoMfuAndItsPeakRss) {
  json cpu = {{"mfu", {{"value", nullptr}, {"why", "CPU run: no dense bf16 peak to divide by"}}},
              {"peak_memory", {{"bytes", 200.0 * 1048576}, {"source", "peak_rss"}}}};
  auto d = test::folder_of_results("model_figures_test", {run("cpu-2026.gpt2", "0.0", cpu)});
  std::vector<std::string> warnings;
  json s = summarize_directory(d.string(), warnings);
  const json& m = s["cpu-2026.gpt2"]["model"];
  EXPECT_TRUE(m["mfu"].is_null());
  EXPECT_EQ(m["mfu_why"], "CPU run: no dense bf16 peak to divide by");
  const std::string text = report_text(d);
  EXPECT_NE(text.find("CPU run: no dense bf16 peak"), std::string::npos) << text;
  EXPECT_NE(text.find(" 200 "), std::string::npos) << text;
  fs::remove_all(d);
}

TEST(ModelFigures, TestsWithoutModelMetricsHaveNoEntryAndNoTable) {
  auto d = test::folder_of_results("model_figures_test",
                                   {run("cpu.toy", "0.0", json::object()),
                                    run("cpu.bad", "0.0", {{"mfu", "fast"}, {"peak_memory", {{"bytes", "lots"}}}})});
  std::vector<std::string> warnings;
  json s = summarize_directory(d.string(), warnings);
  EXPECT_FALSE(s["cpu.toy"].contains("model"));
  // Wrong types are ignored, not read as numbers: an entry without figures.
  EXPECT_TRUE(s["cpu.bad"]["model"]["peak_memory_bytes"].is_null());
  EXPECT_TRUE(s["cpu.bad"]["model"]["mfu"].is_null());
  auto only_toy = test::folder_of_results("model_figures_test", {run("cpu.toy", "0.0", json::object())});
  EXPECT_EQ(report_text(only_toy).find("model figures"), std::string::npos);
  fs::remove_all(only_toy);
}
