// The summary-window flag (issue 16, fast machines): a run whose window
// rates[-20:-2] holds warm-up slices or which has fewer than 20 slices is
// listed in the text report and the HTML page; a run's --min-duration is shown
// when its result records one. Checked on generated result files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/report.hpp"
#include "report/run_series.hpp"
#include "result_files.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace milabench;

namespace {

// `slow` slices at 20/s, then `fast` slices at 100/s with +-1 noise.
std::vector<double> warm_then_steady(int slow, int fast) {
  std::vector<double> r(slow, 20.0);
  for (int i = 0; i < fast; ++i) r.push_back(100.0 + (i % 3) - 1);
  return r;
}

RateSeries series(const std::vector<double>& rates) {
  RateSeries s;
  s.label = "x.json";
  s.rates = rates;
  s.success = true;
  return s;
}

}  // namespace

TEST(SummaryWindow, FewerThanTwentySlicesIsFlagged) {
  const WindowFlag f = check_summary_window("s.t", series(std::vector<double>(12, 50.0)));
  EXPECT_TRUE(f.too_short);
  EXPECT_TRUE(f.flagged());
  EXPECT_EQ(f.window_begin, 0);
  EXPECT_NE(f.reason().find("only 12 slices"), std::string::npos) << f.reason();
  EXPECT_FALSE(check_summary_window("s.t", series(std::vector<double>(20, 50.0))).too_short);
}

TEST(SummaryWindow, WarmUpReachingIntoTheWindowIsFlagged) {
  // 30 slices: the window is slices 10..27; a warm-up of 7.5 s ends after slice 14.
  const WindowFlag f = check_summary_window("s.t", series(warm_then_steady(15, 15)), 7.5);
  EXPECT_FALSE(f.too_short);
  EXPECT_EQ(f.window_begin, 10);
  EXPECT_EQ(f.warm_in_window, 5);
  EXPECT_TRUE(f.flagged());
  EXPECT_NE(f.reason().find("warm-up (7.5 s) reaches 5 slices into the window"), std::string::npos) << f.reason();
  EXPECT_FALSE(check_summary_window("s.t", series(warm_then_steady(15, 15)), 5.0).flagged()) << "ends at the window";
  RateSeries slow = series(warm_then_steady(15, 15));
  slow.sample_duration = 1.0;  // the same 15 warm slices take 15 s
  EXPECT_EQ(check_summary_window("s.t", slow, 15.0).warm_in_window, 5);
}

TEST(SummaryWindow, UsesTheSteadyStateWarmUp) {
  // 6 slow slices then 60 steady ones: steady_state puts the warm-up at 3 s, before the window.
  const WindowFlag f = check_summary_window("s.t", series(warm_then_steady(6, 60)));
  EXPECT_DOUBLE_EQ(f.warmup_s, 3.0);
  EXPECT_EQ(f.window_begin, 46);
  EXPECT_EQ(f.warm_in_window, 0);
  EXPECT_FALSE(f.flagged());
  EXPECT_EQ(f.reason(), "");
}

TEST(SummaryWindow, TextListsWarmUpInTheWindow) {
  ReportData d;
  d.window_flags.push_back(check_summary_window("s.t", series(warm_then_steady(15, 15)), 7.5));
  std::ostringstream out;
  print_window_flags(d, out);
  EXPECT_NE(out.str().find("s.t  x.json: warm-up (7.5 s) reaches 5 slices into the window"), std::string::npos)
      << out.str();
}

TEST(SummaryWindow, ReportListsFlaggedRunsAndMinDuration) {
  const fs::path d = test::result_dir("window_flags");
  json shortrun = test::result_record("s.fast", "0.0", "0", std::vector<double>(14, 90.0));
  json warm = test::result_record("s.fast", "0.1", "1", std::vector<double>(19, 95.0));
  json steady = test::result_record("s.slow", "0.0", "0", warm_then_steady(4, 60));
  steady["timings"]["train"]["min_duration"] = 30.0;
  steady["timings"]["train"]["time"] = 32.0;
  json failed = test::result_record("s.slow", "0.1", "1", std::vector<double>(5, 1.0), false);
  test::write_json(d / "s.fast.J0.0.20261203-101500-000001.json", shortrun);
  test::write_json(d / "s.fast.J0.1.20261203-101500-000002.json", warm);
  test::write_json(d / "s.slow.J0.0.20261203-102000-000001.json", steady);
  test::write_json(d / "s.slow.J0.1.FAIL.20261203-102000-000002.json", failed);

  ReportOptions o;
  o.input = d.string();
  o.html = (d / "report.html").string();
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, out, err), 0) << err.str();
  const std::string text = out.str();
  const auto section = text.find("runs whose summary window");
  ASSERT_NE(section, std::string::npos) << text;
  const std::string flags = text.substr(section);
  EXPECT_NE(flags.find("s.fast  s.fast.J0.0.20261203-101500-000001.json: only 14 slices"), std::string::npos) << flags;
  EXPECT_NE(flags.find("s.fast.J0.1.20261203-101500-000002.json: only 19 slices"), std::string::npos);
  EXPECT_EQ(flags.find("J0.1.FAIL"), std::string::npos) << "a failed run is not measured, so not flagged";
  EXPECT_NE(flags.find("s.slow  s.slow.J0.0.20261203-102000-000001.json: --min-duration 30 s (measured 32.0 s, 64 "
                       "slices)"),
            std::string::npos)
      << flags;
  EXPECT_EQ(flags.find("s.slow.J0.0.20261203-102000-000001.json: only"), std::string::npos);

  const std::string page = milabench::test::read_text(o.html);
  const auto win = page.find("<section id=\"window\">");
  ASSERT_NE(win, std::string::npos);
  const std::string box = page.substr(win, page.find("</section>", win) - win);
  EXPECT_NE(box.find("s.fast.J0.0.20261203-101500-000001.json"), std::string::npos);
  EXPECT_NE(box.find("only 14 slices"), std::string::npos);
  EXPECT_NE(box.find("Runs measured with --min-duration"), std::string::npos);
  EXPECT_NE(page.find("2 runs flagged"), std::string::npos) << "the results table counts s.fast's flagged runs";
  EXPECT_NE(page.find("Short summary windows"), std::string::npos) << "the headline warns";
}

TEST(SummaryWindow, NoFlagSectionWhenEveryWindowIsClean) {
  const fs::path d = test::result_dir("window_clean");
  test::write_json(d / "a.json", test::result_record("s.ok", "0.0", "0", warm_then_steady(4, 60)));
  ReportOptions o;
  o.input = d.string();
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, out, err), 0) << err.str();
  EXPECT_EQ(out.str().find("runs whose summary window"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("--min-duration"), std::string::npos);
}

TEST(SummaryWindow, ARecordedMinDurationOfZeroIsNotListed) {
  // Every run records min_duration; 0 (the default) means none was asked for.
  const fs::path d = test::result_dir("window_zero_min");
  json r = test::result_record("s.ok", "0.0", "0", warm_then_steady(4, 60));
  r["timings"]["train"]["min_duration"] = 0.0;
  test::write_json(d / "a.json", r);
  ReportOptions o;
  o.input = d.string();
  o.html = (d / "report.html").string();
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, out, err), 0) << err.str();
  EXPECT_EQ(out.str().find("--min-duration"), std::string::npos) << out.str();
  EXPECT_EQ(milabench::test::read_text(o.html).find("Runs measured with --min-duration"), std::string::npos);
}
