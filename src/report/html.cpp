// The page: headline (score, failure rate, ratio), context box, then the
// sections of html_parts.hpp. Layout fits 1100 px and A4 print.
#include "report/html.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/html_parts.hpp"
#include "report/marks.hpp"

namespace milabench {

namespace html {

std::string fixed(double v, int prec) {
  if (std::isnan(v)) return "-";
  return fmt::format("{:.{}f}", v, prec);
}

std::string rate(double v) {
  if (std::isnan(v)) return "-";
  const double a = std::fabs(v);
  return fmt::format("{:.{}f}", v, a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3);
}

std::string per_second(const std::string& count_unit) { return (count_unit.empty() ? "count" : count_unit) + "/s"; }

std::string section(const std::string& id, const std::string& heading, const std::string& body) {
  return "<section id=\"" + id + "\"><h2>" + heading + "</h2>\n" + body + "</section>\n";
}

}  // namespace html

namespace {
using namespace html;

// No '<' in here: the page's only style block.
const char* kStyle =
    "body{font:14px/1.45 'DejaVu Sans',Arial,sans-serif;color:#1d1d1d;max-width:1060px;margin:0 auto;padding:18px}"
    "h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:26px 0 8px;padding-bottom:3px;border-bottom:2px solid "
    "#d0d7de}h3{font-size:14px;margin:10px 0 4px}p{margin:4px 0 8px}.sub,.small,.u{color:#5a5a5a}"
    ".small{font-size:12px}.u{display:block;font-weight:400;font-size:11px}"
    ".cards{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}.card{border:1px solid #d0d7de;border-radius:8px;"
    "padding:10px 18px;min-width:190px}.card.warn{border-color:#b26a00;background:#fff8e6}"
    ".label{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:#555}"
    ".big{font-size:46px;font-weight:700;line-height:1.1}.medium{font-size:26px;font-weight:700;line-height:1.5}"
    ".badge{display:inline-block;padding:1px 9px;border-radius:4px;font-size:16px;color:#fff;vertical-align:middle}"
    ".badge.pass{background:#1a7f37}.badge.fail{background:#c62828}"
    ".ctx{display:grid;grid-template-columns:max-content 1fr;gap:3px 18px;margin:0;border:1px solid #d0d7de;"
    "border-radius:8px;padding:10px 16px;background:#f6f8fa}dt{font-weight:700;color:#444}dd{margin:0;"
    "overflow-wrap:anywhere}table{border-collapse:collapse;width:100%;font-size:12.5px;margin:4px 0 8px}"
    "th,td{padding:3px 6px;text-align:right;border-bottom:1px solid #e3e3e3;white-space:nowrap}"
    "th{background:#f0f3f6;border-bottom:2px solid #c8ced5;vertical-align:bottom;white-space:normal}"
    "td:first-child,th:first-child{text-align:left;white-space:normal;overflow-wrap:break-word}"
    "table.left td,table.left th{text-align:left;white-space:normal}"
    ".good{color:#1a7f37;font-weight:700}.bad{color:#c62828;font-weight:700}.warn{color:#9a5b00;font-weight:700}"
    ".m-good{background:#e3f4e6}.m-mid{background:#fff1c9}.m-bad{background:#fbd9d5}"
    ".warnbox{border-left:5px solid #b26a00;background:#fff8e6;padding:6px 12px;margin:6px 0}"
    ".code{font-family:'DejaVu Sans Mono',monospace}"
    ".charts{display:grid;grid-template-columns:1fr 1fr;gap:12px}.fig{border:1px solid #e3e3e3;border-radius:6px;"
    "padding:4px 8px;break-inside:avoid}.fig h3{margin:4px 0 0}"
    "svg.chart{width:100%;height:auto;display:block}svg text{font-family:'DejaVu Sans',Arial,sans-serif}"
    ".tick{font-size:10px;fill:#444}.ta-end{text-anchor:end}.ta-mid{text-anchor:middle}.atitle{font-size:11px;fill:#"
    "222}"
    ".legend{font-size:10.5px;fill:#222}.blabel{font-size:12px;fill:#1d1d1d}.axis{stroke:#333;stroke-width:1}.grid{"
    "stroke:#e4e4e4;stroke-width:1}"
    ".win{fill:#2e7d32;opacity:.14}.warm{fill:#f9a825;opacity:.30}.line{fill:none;stroke-width:1.4}"
    ".failed{stroke-dasharray:4 3}.bar.fast{fill:#2e9d4a}.bar.slow{fill:#d2453b}.bar.same{fill:#7d8b99}"
    ".pt{fill:#1f77b4}.pt.reg{fill:#c62828}.whisk{stroke:#111;stroke-width:1.4}.base{stroke:#111;stroke-width:1.2;"
    "stroke-dasharray:5 3}"
    ".c0{stroke:#1f77b4}.c1{stroke:#ff7f0e}.c2{stroke:#2ca02c}.c3{stroke:#d62728}.c4{stroke:#9467bd}"
    ".c5{stroke:#8c564b}.c6{stroke:#e377c2}.c7{stroke:#7f7f7f}.c8{stroke:#bcbd22}.c9{stroke:#17becf}"
    "@media print{body{max-width:none;padding:0;font-size:11px}.big{font-size:34px}h2{break-after:avoid}"
    "table{font-size:9.5px}th,td{padding:2px "
    "3px;white-space:normal}tr,.card,.ctx{break-inside:avoid}*{-webkit-print-color-adjust:exact;"
    "print-color-adjust:exact}@page{size:A4;margin:12mm}}";

const std::string kTrendNote =
    "<p class=\"small\">Each point: a suite run's mean perf with its 95% interval; red: slower than the previous "
    "runs of the same machine and arguments (Welch's t) and beyond the margin (milarun history).</p>\n";

std::string card(const std::string& label, const std::string& value_class, const std::string& value,
                 const std::string& note, bool warn = false) {
  return std::string("<div class=\"card") + (warn ? " warn" : "") + "\"><div class=\"label\">" + label +
         "</div><div class=\"" + value_class + "\">" + value + "</div><div class=\"small\">" + note + "</div></div>\n";
}

std::string headline(const ReportData& d, const std::string& title) {
  std::string h = "<header id=\"headline\"><h1>" + title +
                  "</h1>\n<p class=\"sub\">milabench score: weighted geometric mean of each test's perf_adj "
                  "(perf reduced by its run-to-run spread and its failures); higher is better.</p>\n<div "
                  "class=\"cards\">\n";
  h += card("Score", "big", fixed(d.score, 2),
            d.score_ci.valid() ? "score 95% CI [" + fixed(d.score_ci.lo, 2) + ", " + fixed(d.score_ci.hi, 2) +
                                     "]</div><div class=\"small\">" + html_escape(d.score_ci_note)
                               : html_escape(!d.score_zero_why.empty() ? "score " + d.score_zero_why
                                             : d.score_ci_note.empty() ? "no interval"
                                                                       : d.score_ci_note));
  const std::string kinds = failure_kinds_text(d);
  h += card("Failure rate", "medium",
            fixed(d.failure_rate * 100, 1) + "% <span class=\"badge " +
                (d.failure_pass ? "pass\">PASS" : "fail\">FAIL") + "</span>",
            fmt::format("{} of {} runs failed (limit 1%)", fixed(d.total_fail, 0), fixed(d.total_n, 0)) +
                (kinds.empty() ? "" : "; " + html_escape(kinds)));
  if (d.has_compare)
    h += card("Against the baseline", "big", fixed(d.score_ratio, 3) + "×",
              "score ratio; baseline score " + fixed(d.base_score, 2));
  std::string marked;  // shortcuts and stand-ins (report/marks.hpp)
  for (const auto& line : fidelity_lines(d)) marked += (marked.empty() ? "" : "<br>") + html_escape(line);
  if (!marked.empty()) h += card("Not the original's work", "medium", "shortcuts or stand-ins", marked, true);
  if (!d.result_flags.empty()) {
    std::string lines;
    for (const auto& l : d.result_flags) lines += (lines.empty() ? "" : "; ") + l;
    h += card("Flagged results (mixed, duplicate, skipped inputs, contended)", "medium",
              fmt::format("{} flag(s)", d.result_flags.size()), html_escape(lines), true);
  }
  if (d.covered_tests < d.weighted_tests) {
    std::string missing;
    for (const auto& m : d.missing_tests) missing += (missing.empty() ? "" : ", ") + m;
    h += card("Partial suite", "medium", fmt::format("{} of {} tests", d.covered_tests, d.weighted_tests),
              "missing: " + html_escape(missing) +
                  ". The score follows the original's rule (a missing test keeps its weight and adds nothing)" +
                  (missing_effect_text(d).empty()
                       ? std::string()
                       : "; moved by tests without a result: " + html_escape(missing_effect_text(d))) +
                  (d.has_compare && d.common_tests > 0 ? fmt::format("; ratio over the {} tests both sides have: {}×",
                                                                     d.common_tests, fixed(d.common_ratio, 3))
                                                       : std::string()),
              true);
  }
  if (d.price > 0)
    h += card("Price per score point", "medium", "$" + fixed(d.price / d.score, 2),
              "machine price $" + fixed(d.price, 0));
  int flagged = 0;
  for (const auto& f : d.window_flags) flagged += f.flagged() ? 1 : 0;
  if (flagged > 0)
    h += card("Short summary windows", "medium", std::to_string(flagged) + " run" + (flagged == 1 ? "" : "s"),
              "warm-up or too few slices in the window: see Summary windows", true);
  return h + "</div></header>\n";
}

std::string context_box(const ReportData& d) {
  static const std::map<std::string, std::string> kLabels = {{"date", "Date (results' local time)"},
                                                             {"host", "Host"},
                                                             {"cpu", "CPU"},
                                                             {"cpus", "CPU count"},
                                                             {"ram", "Memory"},
                                                             {"gpus", "GPUs"},
                                                             {"driver", "NVIDIA driver"},
                                                             {"kernel", "Kernel"},
                                                             {"libtorch", "libtorch"},
                                                             {"milarun", "milarun"},
                                                             {"profile", "Profile"},
                                                             {"isolation", "Isolation"},
                                                             {"data", "Data (provenance)"}};
  std::string h = "<dl class=\"ctx\">\n";
  for (const auto& k : kContextKeys) {
    auto it = d.context.find(k);
    std::string v;
    if (it == d.context.end() || it->second.empty()) {
      v = "<span class=\"small\">not recorded</span>";
    } else {
      const size_t shown = std::min<size_t>(it->second.size(), 6);
      for (size_t i = 0; i < shown; ++i) v += (i ? "; " : "") + html_escape(it->second[i]);
      if (it->second.size() > shown)
        v += fmt::format(" <span class=\"small\">and {} more</span>", it->second.size() - shown);
    }
    h += "<dt>" + kLabels.at(k) + "</dt><dd>" + v + "</dd>\n";
  }
  h += "</dl>\n";
  if (!d.has_runs)
    h += "<p class=\"small\">From a summary file: the machine facts its tests carry. Pass the results directory "
         "for dates, hosts, units, rate charts and summary-window checks.</p>\n";
  return h;
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string render_html(const ReportData& d, const std::map<std::string, std::vector<RateSeries>>* series) {
  const std::string title = html_escape(d.title.empty() ? "milabench report" : d.title);
  std::string h = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + title + "</title>\n<style>" +
                  kStyle + "</style></head><body>\n" + headline(d, title);
  h += section("context", "Context", context_box(d));
  if (d.has_runs) h += section("window", "Summary windows", window_flags_html(d));
  h += section("results", "Results per test", results_table(d));
  const std::string ratios = ratio_chart(d);
  if (!ratios.empty()) h += section("ratios", "Ratio to the baseline per test", ratios);
  if (!d.gpus.empty())
    h += section("devices", "Devices: mean perf relative to the best device",
                 "<p>Each cell: the device's mean perf over its runs / the best device's, for that test.</p>\n" +
                     device_matrix(d));
  if (series && !series->empty()) {
    std::string charts;
    for (const auto& [test, runs] : *series) {
      std::string unit;
      for (const auto& r : d.rows)
        if (r.name == test) unit = r.count_unit;
      const std::string svg = rate_chart(test, unit, runs);
      if (!svg.empty()) charts += "<div class=\"fig\"><h3>" + html_escape(test) + "</h3>\n" + svg + "</div>\n";
    }
    if (!charts.empty()) h += section("charts", "Rate over time", "<div class=\"charts\">\n" + charts + "</div>\n");
  }
  h += section("evidence", "Steady state and fairness", evidence_html(d));
  if (d.has_compare) h += section("significance", "Significance against the baseline", significance_html(d));
  if (const std::string trends = trend_charts_html(d.trends); !trends.empty())
    h += section("history", "History (results store)", kTrendNote + trends);
  return h + "</body></html>\n";
}

std::string history_html(const std::vector<TestTrend>& trends) {
  std::string h = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>milabench history</title>\n<style>" +
                  std::string(kStyle) + "</style></head><body>\n<h1>milabench history</h1>\n";
  const std::string charts = trend_charts_html(trends);
  h += section("history", "Perf over suite runs",
               charts.empty() ? "<p>No test has two suite runs yet.</p>\n" : kTrendNote + charts);
  return h + "</body></html>\n";
}

}  // namespace milabench
