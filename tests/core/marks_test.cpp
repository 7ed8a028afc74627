// Stand-ins and shortcuts, from the result file to the report: the typed
// record reads them, the summary carries them, and the report shows them
// beside the test's numbers, above the table, in HTML and Markdown, and in
// --compare when the two sides did not run the same work.
#include "report/marks.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "report/export.hpp"
#include "report/html.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "result_files.hpp"
#include "results/result_record.hpp"
#include "results/stand_ins.hpp"

using nlohmann::json;
using namespace milabench;

namespace {

std::vector<double> rates(double base) {
  std::vector<double> v;
  for (int i = 0; i < 30; ++i) v.push_back(base + i % 3);
  return v;
}

// The line of `text` that starts with `start`, "" when none.
std::string line_of(const std::string& text, const std::string& start) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(start, 0) == 0) return line;
  return "";
}

// Three runs each of s.atari (on the Pong-like game), s.conv (reduced
// decode) and s.plain (the original's work), summarised.
json marked_summary() {
  auto d = test::result_dir("marks");
  for (int i = 0; i < 3; ++i) {
    const std::string id = "0." + std::to_string(i), dev = std::to_string(i);
    json atari = test::result_record("s.atari", id, dev, rates(100));
    atari[kStandInsKey] = {kPongLikeGame};
    json conv = test::result_record("s.conv", id, dev, rates(200));
    conv["metrics"]["shortcuts"] = {"reduced_decode"};
    conv[kStandInsKey] = json::array();
    test::write_json(d / ("a" + id + ".json"), atari);
    test::write_json(d / ("c" + id + ".json"), conv);
    test::write_json(d / ("p" + id + ".json"), test::result_record("s.plain", id, dev, rates(300)));
  }
  std::vector<std::string> warnings;
  return summarize_directory(d.string(), warnings);
}

}  // namespace

TEST(StandIns, TheRecordReadsThemTyped) {
  json doc = test::result_record("s.t", "0", "0", {1, 2, 3});
  EXPECT_TRUE(parse_result_record(doc)->stand_ins.empty());
  doc[kStandInsKey] = {kPongLikeGame, 7};
  doc["metrics"]["shortcuts"] = {"reduced_decode"};
  auto r = parse_result_record(doc);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stand_ins, std::vector<std::string>{"pong_like_game"});
  EXPECT_EQ(r->shortcuts, std::vector<std::string>{"reduced_decode"});
  doc[kStandInsKey] = "pong_like_game";  // not a list: none
  EXPECT_TRUE(parse_result_record(doc)->stand_ins.empty());
  EXPECT_EQ(stand_ins_of_provenance({{"name", "mnist"}, {"stand_in", kGeneratedData}}),
            std::vector<std::string>{"generated_data"});
  EXPECT_TRUE(stand_ins_of_provenance({{"name", "fake_imagenet"}, {"synthetic", true}}).empty());
  EXPECT_EQ(stand_in_phrase("something_new"), "something_new");
}

TEST(StandIns, InventoryNamesSplitRunsAndDropNone) {
  json e = {{"inventory", {{"stand_ins", {"none", "pong_like_game,generated_data", "pong_like_game"}}}}};
  EXPECT_EQ(inventory_names(e, "stand_ins"), (std::vector<std::string>{"generated_data", "pong_like_game"}));
  EXPECT_TRUE(inventory_names(e, "shortcuts").empty());
  EXPECT_TRUE(inventory_names(json::array(), "stand_ins").empty());
}

TEST(StandIns, AResultOnAStandInIsMarkedBesideItsNumbers) {
  json s = marked_summary();
  EXPECT_EQ(s["s.atari"]["inventory"]["stand_ins"], json::array({"pong_like_game"}));
  EXPECT_EQ(s["s.plain"]["inventory"]["stand_ins"], json::array({"none"}));
  ReportData d = build_report(s, json(), json(), 0, false, "");
  std::ostringstream out;
  print_report(d, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("STAND-IN: s.atari ran on pong_like_game (a C++ Pong-like game, not the Arcade Learning "
                      "Environment): its rate is not comparable with the original's"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("LESS WORK THAN THE ORIGINAL: s.conv ran with opt-in shortcut(s) reduced_decode"),
            std::string::npos);
  const std::string atari = line_of(text, "s.atari "), conv = line_of(text, "s.conv "),
                    plain = line_of(text, "s.plain ");
  EXPECT_NE(atari.find("[stand-in: pong_like_game]"), std::string::npos) << text;
  EXPECT_NE(conv.find("[less work: reduced_decode]"), std::string::npos) << text;
  EXPECT_EQ(conv.find("stand-in"), std::string::npos);
  EXPECT_EQ(plain.find("[stand-in"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("[less work"), std::string::npos) << plain;
  EXPECT_NE(render_html(d, nullptr).find("[stand-in: pong_like_game]"), std::string::npos);
  EXPECT_NE(table_markdown(d).find("s.atari [stand-in: pong_like_game]"), std::string::npos);
}

// Against the original's baselines (no stand-ins) the ratio compares
// different work, and the report says so; against a baseline made on the
// same stand-in it does not.
TEST(StandIns, CompareSaysWhenTheTwoSidesRanDifferentWork) {
  json ours = marked_summary();
  json original = ours;
  for (auto& [name, entry] : original.items()) entry.erase("inventory");
  ReportData d = build_report(ours, json(), original, 0, false, "");
  std::ostringstream out;
  print_report(d, out);
  EXPECT_NE(out.str().find("NOT COMPARABLE WITH THE BASELINE: s.atari (stand-in on this side only: pong_like_game)"),
            std::string::npos)
      << out.str();
  EXPECT_EQ(out.str().find("NOT COMPARABLE WITH THE BASELINE: s.plain"), std::string::npos);
  EXPECT_NE(table_markdown(d).find("[stand-in on this side only: pong_like_game]"), std::string::npos);

  ReportData same = build_report(ours, json(), ours, 0, false, "");
  std::ostringstream again;
  print_report(same, again);
  EXPECT_EQ(again.str().find("NOT COMPARABLE"), std::string::npos) << again.str();
  EXPECT_NE(line_of(again.str(), "s.atari ").find("[stand-in: pong_like_game]"), std::string::npos);

  ReportData reverse = build_report(original, json(), ours, 0, false, "");
  EXPECT_EQ(compare_mark(reverse.rows[0]), "stand-in on the baseline's side only: pong_like_game");
}

// Two summaries of ours both record each test's arguments: a ratio of runs
// made with other arguments, or with an opt-in shortcut on one side only,
// compares different work (a `--compare @last` after `-- --batch-size 32`).
TEST(StandIns, CompareSaysWhenTheTwoSidesRanOtherArgumentsOrShortcuts) {
  json ours = marked_summary();
  for (auto& [name, entry] : ours.items()) entry["arguments"] = json::parse(R"([["--batch-size", "64"]])");
  json base = ours;
  base["s.plain"]["arguments"] = json::parse(R"([["--batch-size", "32"], ["--batch-size", "64"]])");
  base["s.conv"]["inventory"].erase("shortcuts");
  ReportData d = build_report(ours, json(), base, 0, false, "");
  std::ostringstream out;
  print_report(d, out);
  EXPECT_NE(out.str().find("NOT COMPARABLE WITH THE BASELINE: s.plain (arguments (--batch-size 64) here, "
                           "(--batch-size 32), (--batch-size 64) in the baseline)"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("NOT COMPARABLE WITH THE BASELINE: s.conv (opt-in shortcut on this side only: "
                           "reduced_decode)"),
            std::string::npos)
      << out.str();
  EXPECT_EQ(out.str().find("NOT COMPARABLE WITH THE BASELINE: s.atari"), std::string::npos) << out.str();
  // A baseline without arguments (the 2020 ones) says nothing of them.
  for (auto& [name, entry] : base.items()) entry.erase("arguments");
  for (const auto& r : build_report(ours, json(), base, 0, false, "").rows)
    EXPECT_EQ(compare_mark(r).find("arguments"), std::string::npos) << r.name;
}
