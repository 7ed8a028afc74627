// History over the store: the regression check (newest suite run against the
// previous ones, the report's verdicts) and `--compare @ID`, which must give
// the same summary as the results folder it was recorded from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
using nlohmann::json;

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

// Runs that shared their devices (ResultRecord::contended) say nothing of
// the machine: history judges each suite run on the others, against the
// others of the suite runs before. A shared-node episode neither makes a
// regression nor lowers the bar for the suite runs after it.
TEST(StoreHistory, ContendedRunsAreLeftOutOfBothSidesOfTheRegressionCheck) {
  auto s = open_store(test::scratch_dir("hist_contended") + "/milarun.sqlite");
  const auto shared = [](json& doc, int) {
    doc["monitor"] = {{"foreign_cpu", {{"cpus", 2}, {"usable_cpus", 2}, {"window_share", 0.5}}}};
  };
  const auto two_shared = [](json& doc, int i) {
    if (i < 2) doc["monitor"] = {{"foreign_cpu", {{"cpus", 2}, {"usable_cpus", 2}, {"window_share", 0.5}}}};
  };
  std::ostringstream warn;
  import_directory(*s, test::suite_folder("hc0", "cpu.vae", 100, 1700000000), warn);
  import_directory(*s, test::suite_folder("hc1", "cpu.vae", 100, 1700001000), warn);
  import_directory(*s, test::suite_folder("hc2", "cpu.vae", 50, 1700002000, 3, 2, "labnode", shared), warn);
  import_directory(*s, test::suite_folder("hc3", "cpu.vae", 100, 1700003000), warn);
  const auto trends = test_trends(*s, {}, 5);
  ASSERT_EQ(trends.size(), 1u);
  ASSERT_EQ(trends[0].points.size(), 4u);
  const TrendPoint& episode = trends[0].points[2];
  EXPECT_FALSE(episode.regression);
  EXPECT_EQ(episode.contended, 6);
  EXPECT_EQ(episode.n, 0);
  EXPECT_FALSE(std::isfinite(episode.perf));
  EXPECT_EQ(episode.verdict, "no verdict: every run was contended");
  const TrendPoint& after = trends[0].points[3];  // judged against 12 runs at 100, not 6 more at 50
  EXPECT_EQ(after.verdict.find("faster"), std::string::npos) << after.verdict;
  EXPECT_FALSE(after.regression) << after.verdict;
  std::ostringstream out;
  EXPECT_EQ(print_history(*s, {}, 5, out), 0) << out.str();
  EXPECT_NE(out.str().find("(6 contended run(s) left out)"), std::string::npos) << out.str();

  // A real slowdown with two contended runs beside it is still one: judged on the four others.
  import_directory(*s, test::suite_folder("hc4", "cpu.vae", 50, 1700004000, 3, 2, "labnode", two_shared), warn);
  const TrendPoint last = test_trends(*s, {}, 5)[0].points.back();
  EXPECT_TRUE(last.regression) << last.verdict;
  EXPECT_EQ(last.n, 4);
  EXPECT_EQ(last.contended, 2);
}

// The same arguments on synthetic stand-in data and on the real files, or
// with an opt-in shortcut, are different work: separate trends, never one
// judged against the other.
TEST(StoreHistory, OtherDataOrShortcutsMakeASeparateTrendNotARegression) {
  auto s = open_store(test::scratch_dir("hist_inputs") + "/milarun.sqlite");
  const auto synthetic = [](json& doc, int) { doc["dataset"] = {{"synthetic", true}}; };
  const auto real = [](json& doc, int) { doc["dataset"] = {{"synthetic", false}}; };
  const auto cut = [](json& doc, int) {
    doc["dataset"] = {{"synthetic", false}};
    doc["metrics"]["shortcuts"] = {"--fast-decode"};
  };
  std::ostringstream warn;
  for (int i = 0; i < 3; ++i)
    import_directory(
        *s,
        test::suite_folder("hi" + std::to_string(i), "cpu.vae", 100, 1700000000 + i * 1000, 3, 2, "labnode", synthetic),
        warn);
  import_directory(*s, test::suite_folder("hi_real", "cpu.vae", 50, 1700005000, 3, 2, "labnode", real), warn);
  import_directory(*s, test::suite_folder("hi_cut", "cpu.vae", 200, 1700006000, 3, 2, "labnode", cut), warn);
  const auto trends = test_trends(*s, {}, 5);
  ASSERT_EQ(trends.size(), 3u);
  std::vector<std::string> inputs;
  for (const auto& t : trends) {
    inputs.push_back(t.inputs);
    EXPECT_FALSE(t.points.back().regression) << t.inputs << ": " << t.points.back().verdict;
  }
  std::sort(inputs.begin(), inputs.end());
  EXPECT_EQ(inputs, (std::vector<std::string>{"", "opt-in shortcuts [\"--fast-decode\"]", "synthetic data"}));
  std::ostringstream out;
  EXPECT_EQ(print_history(*s, {}, 5, out), 0) << out.str();
  EXPECT_NE(out.str().find("arguments [\"--batch-size\",\"64\"]  (synthetic data)"), std::string::npos) << out.str();
}

// A regression after an upgrade says what changed in its runs' inventory.
TEST(StoreHistory, APointSaysWhatChangedSinceTheSuiteRunBefore) {
  auto s = open_store(test::scratch_dir("hist_changes") + "/milarun.sqlite");
  const auto torch = [](const std::string& v) {
    return [v](json& doc, int) { doc["inventory"]["libtorch_version"] = v; };
  };
  std::ostringstream warn;
  import_directory(*s, test::suite_folder("hx0", "cpu.vae", 100, 1700000000, 3, 2, "labnode", torch("1.13.1")), warn);
  import_directory(*s, test::suite_folder("hx1", "cpu.vae", 100, 1700001000, 3, 2, "labnode", torch("1.13.1")), warn);
  import_directory(*s, test::suite_folder("hx2", "cpu.vae", 50, 1700002000, 3, 2, "labnode", torch("2.6.0")), warn);
  const auto points = test_trends(*s, {}, 5)[0].points;
  ASSERT_EQ(points.size(), 3u);
  EXPECT_TRUE(points[1].changes.empty());
  EXPECT_EQ(points[2].changes, std::vector<std::string>{"libtorch_version 1.13.1 -> 2.6.0"});
  EXPECT_TRUE(points[2].regression);
  std::ostringstream out;
  print_history(*s, {}, 5, out);
  EXPECT_NE(out.str().find("REGRESSION\n         changed since the suite run before: libtorch_version 1.13.1 -> 2.6.0"),
            std::string::npos)
      << out.str();
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

// In a lab's store the newest other suite run is often another node's or
// another suite's: @last is the one before the input's, on its machine, of
// its suite.
TEST(StoreCompare, LastIsTheEarlierSuiteRunOfTheSameMachineAndSuite) {
  auto s = open_store(test::scratch_dir("last_same") + "/milarun.sqlite");
  std::ostringstream warn;
  const std::string older = test::suite_folder("ls0", "cpu.vae", 100, 1700000000);
  const std::string mine = test::suite_folder("ls1", "cpu.vae", 100, 1700001000);
  for (const auto& dir : {older, mine,                                                           // labnode, cpu
                          test::suite_folder("ls2", "cpu.vae", 100, 1700002000, 3, 2, "node9"),  // another node
                          test::suite_folder("ls3", "gpu.vae", 100, 1700003000),                 // another suite
                          test::suite_folder("ls4", "cpu.vae", 100, 1700004000)})                // later than mine
    import_directory(*s, dir, warn);
  std::string label;
  summary_for_ref(*s, "@last", mine, &label);
  EXPECT_NE(label.find(absolute_dir(older) + ")"), std::string::npos) << label;
  // A folder not in the store: the newest of its machine and suite.
  summary_for_ref(*s, "@last", test::suite_folder("ls5", "gpu.vae", 100, 1700005000), &label);
  EXPECT_EQ(label.rfind("@4 ", 0), 0u) << label;
  try {
    summary_for_ref(*s, "@last", test::suite_folder("ls6", "cpu.vae", 100, 1700006000, 1, 1, "node7"), nullptr);
    ADD_FAILURE() << "a machine with no earlier run";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no earlier suite run of suite \"cpu\" on node7"), std::string::npos)
        << e.what();
  }
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
