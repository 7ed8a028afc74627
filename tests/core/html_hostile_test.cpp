// The HTML report against result files whose strings are markup and script:
// every string a result, summary or option carries must reach the page as
// text, never as a tag, an attribute or a script. The page is checked with a
// small tag scanner: every '<' must open one of the report's own tags, with
// only its own attributes, each value double-quoted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
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

const std::vector<std::string> kHostile = {
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(2)>",
    "'><svg onload=alert(3)>",
    "</style><script>alert(4)</script>",
    "javascript:alert(5)",
    "]]><script>alert(6)</script><![CDATA[",
    "\xe2\x80\xa8</title><script>alert(7)</script>",  // U+2028, then a way out of <title>
    "<!--<a href=\"javascript:alert(8)\">x</a>",
};

// One value of `kHostile` per string field of a result: name, job, device,
// error, inventory (GPU names, driver, libtorch, CPU model, host), isolation,
// dataset, arguments. The rates rise, so each run is listed as not steady
// (with its file name) in the evidence section.
json hostile_result(size_t test, int run, const std::string& gpu_prefix) {
  const std::string& h = kHostile[test % kHostile.size()];
  std::vector<double> rates;
  for (int i = 0; i < 60; ++i) rates.push_back(100 + 2.0 * i + run);
  json r = test::result_record("t" + std::to_string(test) + "." + h, h + std::to_string(run),
                               h + std::to_string(run % 2), rates, run != 2);
  r["error"] = run == 2 ? json(h + " (the run's error text)") : json(nullptr);
  r["inventory"] = {{"gpus", {gpu_prefix + h, h}},
                    {"driver", h},
                    {"libtorch_version", h},
                    {"cpu_count", h},
                    {"cpu_model", h},
                    {"hostname", h}};
  r["isolation"] = {{"kind", h}};
  r["dataset"] = {{"name", h}, {"synthetic", true}};
  r["arguments"] = {"--batch-size", h};
  return r;
}

fs::path hostile_results(const std::string& tag, const std::string& gpu_prefix) {
  fs::path d = test::result_dir(tag);
  for (size_t t = 0; t < kHostile.size(); ++t)
    for (int run = 0; run < 3; ++run) {
      std::string file = "t" + std::to_string(t) + "." + kHostile[t] + ".J0." + std::to_string(run) + ".json";
      std::replace(file.begin(), file.end(), '/', '_');  // the only byte a file name cannot hold
      test::write_json(d / file, hostile_result(t, run, gpu_prefix));
    }
  return d;
}

// Every markup problem of `page`: a tag or attribute the report does not
// write, an unquoted value, a URL scheme, an unterminated tag.
std::vector<std::string> markup_problems(const std::string& page) {
  static const std::set<std::string> tags = {"html", "head", "meta",  "title", "style", "body",   "h1",
                                             "h2",   "h3",   "table", "tr",    "th",    "td",     "span",
                                             "ul",   "li",   "p",     "svg",   "line",  "text",   "polyline",
                                             "rect", "div",  "dl",    "dt",    "dd",    "header", "section"};
  static const std::set<std::string> attrs = {"charset", "class", "xmlns", "width", "height", "role", "x1",     "y1",
                                              "x2",      "y2",    "x",     "y",     "points", "id",   "viewBox"};
  std::vector<std::string> problems;
  auto word = [&](size_t& i) {
    size_t b = i;
    while (i < page.size() && (std::isalnum(static_cast<unsigned char>(page[i])) || page[i] == '-')) ++i;
    return page.substr(b, i - b);
  };
  for (size_t i = page.find('<'); i != std::string::npos; i = page.find('<', i)) {
    const std::string at = " at offset " + std::to_string(i) + ": " + page.substr(i, 60);
    if (page.compare(i, 15, "<!DOCTYPE html>") == 0) {
      i += 15;
      continue;
    }
    ++i;
    if (i < page.size() && page[i] == '/') ++i;
    const std::string name = word(i);
    if (!tags.count(name)) {
      problems.push_back("tag <" + name + ">" + at);
      continue;
    }
    while (i < page.size() && page[i] != '>') {
      if (page[i] == ' ') {
        ++i;
        continue;
      }
      if (page.compare(i, 2, "/>") == 0) {
        ++i;
        continue;
      }
      const std::string attr = word(i);
      if (!attrs.count(attr)) {
        problems.push_back("attribute '" + attr + "'" + at);
        break;
      }
      if (page.compare(i, 2, "=\"") != 0) {
        problems.push_back("unquoted value of " + attr + at);
        break;
      }
      const size_t end = page.find('"', i + 2);
      if (end == std::string::npos) {
        problems.push_back("unterminated value" + at);
        break;
      }
      const std::string value = page.substr(i + 2, end - i - 2);
      const bool svg_namespace = attr == "xmlns" && value == "http://www.w3.org/2000/svg";
      if (value.find('<') != std::string::npos || value.find('&') != std::string::npos ||
          (value.find(':') != std::string::npos && !svg_namespace))
        problems.push_back("value '" + value + "' of " + attr + at);
      i = end + 1;
    }
  }
  return problems;
}

}  // namespace

TEST(HtmlHostileInput, MarkupInResultStringsStaysText) {
  const fs::path a = hostile_results("html_hostile_a", "A ");
  const fs::path b = hostile_results("html_hostile_b", "B ");  // the baseline: its inventory differs
  std::vector<std::string> warnings;
  const fs::path base = b / "baseline.json";
  test::write_json(base, summarize_directory(b.string(), warnings));

  ReportOptions o;
  o.input = a.string();
  o.compare = base.string();
  o.compare_gpus = true;
  o.html = (a / "report.html").string();
  o.title = "</title><script>alert(9)</script>" + kHostile[1];
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, out, err), 0) << err.str();
  const std::string page = milabench::test::read_text(o.html);
  std::string lower = page;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });

  EXPECT_EQ(lower.find("<script"), std::string::npos);
  EXPECT_EQ(lower.find("<img"), std::string::npos);
  EXPECT_EQ(lower.find("<a "), std::string::npos);
  EXPECT_EQ(lower.find("<!--"), std::string::npos);
  EXPECT_EQ(lower.find("<![cdata["), std::string::npos);
  EXPECT_EQ(lower.find("</style>"), lower.rfind("</style>")) << "one style block, ours";
  for (const auto& p : markup_problems(page)) ADD_FAILURE() << p;
  // The strings did reach the page, as text: test names, devices, file names,
  // inventory lines and the title.
  EXPECT_NE(page.find(html_escape("t0." + kHostile[0])), std::string::npos);
  EXPECT_NE(page.find(html_escape(kHostile[1] + "1")), std::string::npos);  // a device (per-GPU table)
  EXPECT_NE(page.find("gpu_model: "), std::string::npos);                   // the inventory differences
  EXPECT_NE(page.find(html_escape("A " + kHostile[0])), std::string::npos);
  EXPECT_NE(page.find(html_escape(kHostile[3])), std::string::npos);
  EXPECT_NE(page.find("<title>&lt;/title&gt;&lt;script&gt;alert(9)"), std::string::npos);
  EXPECT_NE(page.find("<h2>Rate over time</h2>"), std::string::npos);
}

TEST(HtmlHostileInput, EscapeCoversEveryMarkupByte) {
  EXPECT_EQ(html_escape("<a href='javascript:x'>\"&amp;</a>"),
            "&lt;a href=&#39;javascript:x&#39;&gt;&quot;&amp;amp;&lt;/a&gt;");
  EXPECT_EQ(html_escape("]]>\xe2\x80\xa8"), "]]&gt;\xe2\x80\xa8");  // U+2028 is text in HTML (no script here)
}
