// History over the store: the regression check (newest suite run against the
// previous ones, the report's verdicts) and `--compare @ID`, which must give
// the same summary as the results folder it was recorded from.
#include <gtest/gtest.h>

#include <sstream>

#include "report/html.hpp"
#include "report/summary.hpp"
#include "scratch_dir.hpp"
#include "store/compare_ref.hpp"
#include "store/history.hpp"
#include "store/recorder.hpp"
#include "store_files.hpp"

using namespace milabench;
using namespace milabench::store;

namespace {

// A store holding three suite runs of cpu.vae at ~100/s, then one at `newest`/s.
std::unique_ptr<ResultStore> store_with_history(const std::string& tag, double newest) {
  auto s = open_store(test::scratch_dir("hist_" + tag) + "/milarun.sqlite");
  std::ostringstream warn;
  for (int i = 0; i < 3; ++i)
    import_directory(*s, test::suite_folder(tag + std::to_string(i), "cpu.vae", 100, 1700000000 + i * 1000), warn);
  import_directory(*s, test::suite_folder(tag + "new", "cpu.vae", newest, 1700009000), warn);
  return s;
}

}  // namespace

TEST(StoreHistory, HalvedPerfIsFlaggedAsARegression) {
  auto s = store_with_history("slow", 50);
  const auto trends = test_trends(*s, {}, 5);
  ASSERT_EQ(trends.size(), 1u);
  ASSERT_EQ(trends[0].points.size(), 4u);
  EXPECT_FALSE(trends[0].points[1].regression);
  EXPECT_FALSE(trends[0].points[2].regression);
  const TrendPoint& last = trends[0].points.back();
  EXPECT_TRUE(last.regression) << last.verdict;
  EXPECT_EQ(last.verdict.rfind("slower by 50.0%", 0), 0u) << last.verdict;
  EXPECT_NEAR(last.perf, 50, 1);
  std::ostringstream out;
  EXPECT_EQ(print_history(*s, {}, 5, out), 1);
  EXPECT_NE(out.str().find("REGRESSION"), std::string::npos) << out.str();
}

TEST(StoreHistory, UnchangedPerfIsNotARegression) {
  auto s = store_with_history("same", 100);
  const auto trends = test_trends(*s, {}, 5);
  ASSERT_EQ(trends.size(), 1u);
  EXPECT_FALSE(trends[0].points.back().regression) << trends[0].points.back().verdict;
  std::ostringstream out;
  EXPECT_EQ(print_history(*s, {}, 5, out), 0);
}

TEST(StoreHistory, FiltersByMachineAndDate) {
  auto s = store_with_history("filter", 100);
  HistoryFilter f;
  f.machine = "elsewhere";
  EXPECT_TRUE(test_trends(*s, f, 5).empty());
  f.machine = "labnode";
  f.since = "2023-11-15";  // after the first three suite runs (Nov 14 2023), before the last
  const auto trends = test_trends(*s, f, 5);
  ASSERT_EQ(trends.size(), 1u);
  EXPECT_EQ(trends[0].points.size(), 1u);
}

TEST(StoreHistory, TrendChartMarksTheRegressionInRed) {
  auto s = store_with_history("chart", 50);
  const std::string page = history_html(test_trends(*s, {}, 5));
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_EQ(std::count(page.begin(), page.end(), '\n') > 0, true);
  EXPECT_NE(page.find("class=\"pt reg\""), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
}

TEST(StoreCompare, SuiteRunSummaryEqualsTheFolderSummary) {
  const std::string dir = test::suite_folder("cmp", "cpu.vae", 100, 1700000000);
  auto s = open_store(test::scratch_dir("cmp_db") + "/milarun.sqlite");
  std::ostringstream warn;
  import_directory(*s, dir, warn);
  std::string label;
  const auto from_store = summary_for_ref(*s, "@1", "", &label);
  std::vector<std::string> warnings;
  const auto from_folder = summarize_directory(dir, warnings);
  EXPECT_EQ(from_store["cpu.vae"]["train"], from_folder["cpu.vae"]["train"]);
  EXPECT_EQ(from_store["cpu.vae"]["pergpu"], from_folder["cpu.vae"]["pergpu"]);
  EXPECT_EQ(from_store["cpu.vae"]["n"], 6);
  EXPECT_EQ(label.rfind("@1 (labnode", 0), 0u) << label;
}

TEST(StoreCompare, LastIsTheNewestOtherSuiteRun) {
  auto s = store_with_history("last", 100);
  const auto runs = s->suite_runs();
  std::string label;
  summary_for_ref(*s, "@last", runs.back().info.outdir, &label);
  EXPECT_EQ(label.rfind("@" + std::to_string(runs[2].id) + " ", 0), 0u) << label;
  EXPECT_THROW(summary_for_ref(*s, "@99", "", nullptr), std::invalid_argument);
  EXPECT_THROW(summary_for_ref(*s, "@x1", "", nullptr), std::invalid_argument);
}
