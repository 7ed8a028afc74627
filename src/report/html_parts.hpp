// Parts of the HTML report (html.cpp assembles them): charts as inline SVG
// (html_charts.cpp) and tables (html_tables.cpp). Every function returns
// markup whose strings from results, summaries or options are escaped with
// html_escape; styling is by class only (the page's one <style> block).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "report/report_data.hpp"

namespace milabench::html {

// "-" for NaN; otherwise `prec` decimals.
std::string fixed(double v, int prec = 2);
// A rate with 3-4 significant digits ("12345", "123.4", "1.234"); "-" for NaN.
std::string rate(double v);
// "images/s" from a count unit; "count/s" when unknown.
std::string per_second(const std::string& count_unit);
// <section id="..."><h2>heading</h2>body</section>; heading is markup.
std::string section(const std::string& id, const std::string& heading, const std::string& body);

// Rate over time of one test: one line per run (colour per run, legend by
// device), the runs' summary windows and warm-ups shaded, axes with ticks
// and titles. "" when no run has two finite rates.
std::string rate_chart(const std::string& test, const std::string& count_unit, const std::vector<RateSeries>& runs);
// Each test's perf_ratio as a bar from 1 on a log axis, with its 95%
// interval; "" without compare or when no ratio is finite.
std::string ratio_chart(const ReportData& d);

// The main table (units in the headers; with compare the baseline, ratios, verdict).
std::string results_table(const ReportData& d);
// Runs whose summary window is short or holds warm-up, runs with --min-duration.
std::string window_flags_html(const ReportData& d);
// Device x test matrix of each device's mean perf / the best device's (--compare-gpus).
std::string device_matrix(const ReportData& d);
// Steady state, fairness, unsteady and --until-stable runs, energy.
std::string evidence_html(const ReportData& d);
// With compare: tests, p-values, verdicts, inventory differences.
std::string significance_html(const ReportData& d);

}  // namespace milabench::html
