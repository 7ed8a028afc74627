// Tables of the HTML report (html_parts.hpp). Units in every header: a
// test's rates are in its count unit per second (the "count" column).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/html.hpp"
#include "report/html_parts.hpp"
#include "report/marks.hpp"
#include "report/model_figures.hpp"
#include "report/report.hpp"

namespace milabench::html {

namespace {

std::string th(const std::string& name, const std::string& unit = "") {
  return "<th>" + name + (unit.empty() ? "" : "<span class=\"u\">(" + unit + ")</span>") + "</th>";
}
std::string td(const std::string& v, const std::string& cls = "") {
  return (cls.empty() ? "<td>" : "<td class=\"" + cls + "\">") + v + "</td>";
}
std::string interval(const Interval& i, int prec = -1) {
  if (!i.valid()) return "-";
  return "[" + (prec < 0 ? rate(i.lo) : fixed(i.lo, prec)) + ", " + (prec < 0 ? rate(i.hi) : fixed(i.hi, prec)) + "]";
}
// Verdicts may carry detail ("slower by 4% ..."): the first word decides.
std::string verdict_class(const std::string& v) {
  return v.rfind("faster", 0) == 0 ? "good" : v.rfind("slower", 0) == 0 ? "bad" : "";
}

// The test's name, with its shortcuts, stand-ins and (with compare) why
// its ratio compares different work (report/marks.hpp) under it.
std::string name_cell(const ReportRow& r) {
  const std::string marks = row_marks(r) + (compare_mark(r).empty() ? "" : " [" + compare_mark(r) + "]");
  return html_escape(r.name) + (marks.empty() ? "" : "<div class=\"small\">" + html_escape(marks) + "</div>");
}

}  // namespace

std::string results_table(const ReportData& d) {
  std::string h = "<table class=\"results\"><tr>" + th("test") + th("count") + th("weight") + th("runs", "failed") +
                  th("perf", "count/s") + th("95% CI", "count/s") + th("std", "% of perf") + th("perf_adj", "count/s");
  if (d.has_compare)
    h += th("baseline perf", "count/s") + th("ratio", "×") + th("ratio 95% CI", "×") + th("ratio_adj", "×") +
         th("verdict");
  if (d.has_runs) h += th("summary window");
  h += "</tr>\n";
  for (const auto& r : d.rows) {
    h += "<tr>" + td(name_cell(r)) + td(r.count_unit.empty() ? "-" : html_escape(r.count_unit)) +
         td(fixed(r.weight, 0)) + td(fixed(r.n, 0) + " (" + fixed(r.fail, 0) + ")", r.fail > 0 ? "bad" : "") +
         td(rate(r.perf)) + td(r.ci.valid() ? interval(r.ci) : html_escape(r.ci_method.empty() ? "-" : r.ci_method)) +
         td(fixed(r.std_pct, 1)) + td(rate(r.perf_adj));
    if (d.has_compare)
      h += td(rate(r.perf_base)) + td(fixed(r.perf_ratio, 3)) + td(interval(r.ratio_ci, 3)) +
           td(fixed(r.perf_ratio_adj, 3)) +
           td(r.verdict.empty() ? "-" : html_escape(r.verdict), verdict_class(r.verdict));
    if (d.has_runs)
      h += r.window_flags > 0
               ? td(fmt::format("{} run{} flagged", r.window_flags, r.window_flags == 1 ? "" : "s"), "warn")
               : td("ok");
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

std::string window_flags_html(const ReportData& d) {
  std::string flagged, min_dur, extended;
  for (const auto& f : d.window_flags) {
    const std::string who = html_escape(f.test) + "</td><td>" + html_escape(f.label);
    if (f.flagged())
      flagged += "<tr><td>" + who + "</td>" + td(std::to_string(f.slices)) +
                 td(std::isfinite(f.warmup_s) ? fixed(f.warmup_s, 1) : "-") + td(html_escape(f.reason())) + "</tr>\n";
    if (std::isfinite(f.min_duration))
      min_dur += "<tr><td>" + who + "</td>" + td(fmt::format("{:g}", f.min_duration)) + td(fixed(f.measured_s, 1)) +
                 td(std::to_string(f.slices)) + "</tr>\n";
    if (f.extended_s > 0)
      extended += "<tr><td>" + who + "</td>" + td(fixed(f.extended_s, 1)) + td(fixed(f.measured_s, 1)) +
                  td(std::to_string(f.slices)) + "</tr>\n";
  }
  std::string h;
  if (!flagged.empty())
    h += "<div class=\"warnbox\"><p>These runs' perf averages a window (rates[-20:-2], the last 10 s minus the last "
         "second) that is short or still warming up: measure longer (<span class=\"code\">milarun jobs --min-duration "
         "S</span>) "
         "before trusting them.</p>\n<table class=\"left\"><tr>" +
         th("test") + th("result file") + th("slices", "0.5 s each") + th("warm-up", "s") + th("why") + "</tr>\n" +
         flagged + "</table></div>\n";
  else
    h += "<p>Every successful run's summary window holds at least 18 slices after its warm-up.</p>\n";
  if (!extended.empty())
    h += "<h3>Runs measured past --max-count (the window rule)</h3>\n<p>They reached their count before their "
         "summary window held only steady slices and went on until it did (<span class=\"code\">--stop-at-count"
         "</span> stops at the count, as the original).</p>\n<table class=\"left\"><tr>" +
         th("test") + th("result file") + th("past the count", "s") + th("measured", "s") + th("slices") + "</tr>\n" +
         extended + "</table>\n";
  if (!min_dur.empty())
    h += "<h3>Runs measured with --min-duration</h3>\n<table class=\"left\"><tr>" + th("test") + th("result file") +
         th("--min-duration", "s") + th("measured", "s") + th("slices") + "</tr>\n" + min_dur + "</table>\n";
  return h;
}

std::string device_matrix(const ReportData& d) {
  std::vector<std::string> devices;
  for (const auto& g : d.gpus)
    for (const auto& [dev, v] : g.devices)
      if (std::find(devices.begin(), devices.end(), dev) == devices.end()) devices.push_back(dev);
  std::string h = "<table class=\"matrix\"><tr>" + th("test");
  for (const auto& dev : devices) h += th("device " + html_escape(dev), "×");
  h += "</tr>\n";
  for (const auto& g : d.gpus) {
    if (g.stat != "mean") continue;
    h += "<tr>" + td(html_escape(g.test));
    for (const auto& dev : devices) {
      auto it = std::find_if(g.devices.begin(), g.devices.end(), [&](const auto& p) { return p.first == dev; });
      const double v = it == g.devices.end() ? NAN : it->second;
      h += td(fixed(v, 3), !std::isfinite(v) ? "" : v >= 0.95 ? "m-good" : v >= 0.85 ? "m-mid" : "m-bad");
    }
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

std::string evidence_html(const ReportData& d) {
  std::string h = "<table><tr>" + th("test") + th("warm-up", "s, median / max") + th("unsteady runs") +
                  th("--until-stable runs") + th("slice CI", "± % of perf") + th("noise", "% of perf") +
                  th("device min", "count/s") + th("device max", "count/s") + th("worst share", "× of mean, device") +
                  "</tr>\n";
  for (const auto& r : d.rows)
    h += "<tr>" + td(html_escape(r.name)) +
         td(std::isnan(r.warmup_median_s) ? "-" : fixed(r.warmup_median_s, 1) + " / " + fixed(r.warmup_max_s, 1)) +
         td(std::to_string(r.unsteady_runs), r.unsteady_runs ? "warn" : "") + td(std::to_string(r.until_stable_runs)) +
         td(fixed(r.slice_ci_pct, 1)) + td(fixed(r.noise_pct, 1)) + td(rate(r.dev_min)) + td(rate(r.dev_max)) +
         td(std::isnan(r.worst_share) ? "-" : fixed(r.worst_share, 3) + " (" + html_escape(r.worst_device) + ")") +
         "</tr>\n";
  h += "</table>\n";
  std::string unsteady, until;
  for (const auto& r : d.rows) {
    for (const auto& u : r.unsteady) unsteady += "<li>" + html_escape(r.name + "  " + u) + "</li>\n";
    for (const auto& u : r.until_stable) until += "<li>" + html_escape(r.name + "  " + u) + "</li>\n";
  }
  if (!unsteady.empty()) h += "<h3>Runs not steady over the summary window</h3>\n<ul>\n" + unsteady + "</ul>\n";
  if (!until.empty()) h += "<h3>Runs that used --until-stable</h3>\n<ul>\n" + until + "</ul>\n";
  std::string energy;  // only tests whose power was measured
  for (const auto& r : d.rows)
    if (std::isfinite(r.examples_per_watt))
      energy += "<tr>" + td(html_escape(r.name)) + td(fixed(r.joules_per_example, 4)) +
                td(fixed(r.examples_per_watt, 3)) + "</tr>\n";
  if (!energy.empty())
    h += "<h3>Energy (runs where power was measured)</h3>\n<table><tr>" + th("test") + th("J/example") +
         th("examples/W") + "</tr>\n" + energy + "</table>\n";
  h += model_figures_html(d);
  return h;
}

std::string significance_html(const ReportData& d) {
  std::string h =
      "<p>Two statements per test: is the difference real (two-sided test, alpha 0.05), and does it matter: "
      "beyond the equivalence margin when the 95% interval of the difference lies outside it, within when "
      "the interval lies inside it, else undecided (with the runs a side that would decide). &quot;same&quot; "
      "only when the difference is not real and within the margin (docs/statistics.md).</p>\n"
      "<table><tr>" +
      th("test") + th("difference", "% of baseline") + th("difference 95% CI", "%") + th("margin", "%") +
      th("margin from") + th("method") + th("p") + th("effect") + th("vs margin") + th("verdict") + "</tr>\n";
  for (const auto& r : d.rows) {
    if (r.sig.method.empty()) continue;
    h += "<tr>" + td(name_cell(r)) + td(fixed(r.diff_pct, 1)) + td(interval(r.diff_ci_pct, 1)) +
         td(fixed(r.noise_floor_pct, 1)) + td(r.margin_source.empty() ? "-" : html_escape(r.margin_source)) +
         td(html_escape(r.sig.method)) + td(html_escape(p_cell(r.sig.p_value))) +
         td(std::isnan(r.sig.effect) ? "-" : html_escape(r.sig.effect_name) + " " + fixed(r.sig.effect, 2)) +
         td(r.matters.empty() ? "-" : html_escape(r.matters)) +
         td(r.verdict.empty() ? "-" : html_escape(r.verdict), verdict_class(r.verdict)) + "</tr>\n";
  }
  h += "</table>\n";
  if (!d.inventory_diffs.empty()) {
    h += "<div class=\"warnbox\"><h3>The two sides differ in what matters for a comparison</h3>\n<ul>\n";
    for (const auto& line : d.inventory_diffs) h += "<li>" + html_escape(line) + "</li>\n";
    h += "</ul></div>\n";
  }
  return h;
}

}  // namespace milabench::html
