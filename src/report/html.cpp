#include "report/html.hpp"

#include <algorithm>

#include "report/report.hpp"
#include <cmath>

#include <fmt/format.h>

namespace milabench {

namespace {

std::string cell(double v, int prec = 2) {
  if (std::isnan(v)) return "-";
  return fmt::format("{:.{}f}", v, prec);
}

const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string chart(const std::string& test, const std::vector<RateSeries>& runs) {
  const double W = 640, H = 240, L = 60, R = 10, T = 10, B = 30;
  size_t max_len = 0;
  double ymax = 0;
  for (const auto& s : runs) {
    max_len = std::max(max_len, s.rates.size());
    for (double v : s.rates)
      if (std::isfinite(v)) ymax = std::max(ymax, v);
  }
  if (max_len < 2 || ymax <= 0) return "";
  const double xmax = (max_len - 1) * 0.5;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\">"
      "<title>{}</title>"
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#000\"/>"
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#000\"/>"
      "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{:.1f}</text>"
      "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">0</text>"
      "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{:.1f} s</text>",
      W, H, html_escape(test + " rate (examples/s) over time"), L, T, L, H - B, L, H - B, W - R,
      H - B, L - 4, T + 10, ymax, L - 4, H - B, W - R, H - 8, xmax);
  size_t ci = 0;
  for (const auto& s : runs) {
    const size_t stride = std::max<size_t>(1, (s.rates.size() + 499) / 500);
    std::string pts;
    for (size_t i = 0; i < s.rates.size(); i += stride) {
      if (!std::isfinite(s.rates[i])) continue;
      double x = L + (i * 0.5) / xmax * (W - L - R);
      double y = (H - B) - s.rates[i] / ymax * (H - B - T);
      pts += fmt::format("{:.1f},{:.1f} ", x, y);
    }
    svg += fmt::format(
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1\" points=\"{}\"><title>{}</title>"
        "</polyline>",
        kColors[ci++ % 10], pts, html_escape(s.label));
  }
  return svg + "</svg>";
}

// Steady state, fairness, significance and inventory sections (report.cpp's text, as tables).
std::string evidence_html(const ReportData& d) {
  std::string h =
      "<h2>Steady state and fairness</h2>\n<table>\n<tr><th>test</th><th>warm-up s (median/max)</th>"
      "<th>unsteady runs</th><th>--until-stable runs</th><th>slice CI &plusmn;%</th><th>noise %</th>"
      "<th>device min</th><th>device max</th><th>worst share (device)</th></tr>\n";
  for (const auto& r : d.rows) {
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        html_escape(r.name),
        std::isnan(r.warmup_median_s) ? "-" : cell(r.warmup_median_s, 1) + " / " + cell(r.warmup_max_s, 1),
        r.unsteady_runs, r.until_stable_runs, cell(r.slice_ci_pct, 1), cell(r.noise_pct, 1), cell(r.dev_min),
        cell(r.dev_max),
        std::isnan(r.worst_share) ? "-" : cell(r.worst_share, 3) + " (" + html_escape(r.worst_device) + ")");
  }
  h += "</table>\n";
  std::string unsteady, until;
  for (const auto& r : d.rows) {
    for (const auto& u : r.unsteady) unsteady += "<li>" + html_escape(r.name + "  " + u) + "</li>\n";
    for (const auto& u : r.until_stable) until += "<li>" + html_escape(r.name + "  " + u) + "</li>\n";
  }
  if (!unsteady.empty())
    h += "<h3>Runs not steady over the summary window</h3>\n<ul>\n" + unsteady + "</ul>\n";
  if (!until.empty()) h += "<h3>Runs that used --until-stable</h3>\n<ul>\n" + until + "</ul>\n";
  if (!d.has_compare) return h;
  h += "<h2>Significance against the baseline</h2>\n<p>Two-sided, alpha 0.05; a difference under the noise "
       "floor is shown as &quot;same&quot;.</p>\n<table>\n<tr><th>test</th><th>diff %</th><th>noise floor %</th>"
       "<th>method</th><th>p</th><th>effect</th><th>verdict</th></tr>\n";
  for (const auto& r : d.rows) {
    if (r.sig.method.empty()) continue;
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     html_escape(r.name), cell(r.diff_pct, 1), cell(r.noise_floor_pct, 1), r.sig.method,
                     html_escape(p_cell(r.sig.p_value)),
                     std::isnan(r.sig.effect) ? "-" : r.sig.effect_name + " " + cell(r.sig.effect, 2),
                     r.verdict.empty() ? "-" : r.verdict);
  }
  h += "</table>\n";
  if (!d.inventory_diffs.empty()) {
    h += "<h3 class=\"fail\">The two sides differ in what matters for a comparison</h3>\n<ul>\n";
    for (const auto& line : d.inventory_diffs) h += "<li>" + html_escape(line) + "</li>\n";
    h += "</ul>\n";
  }
  return h;
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string render_html(const ReportData& d,
                        const std::map<std::string, std::vector<RateSeries>>* series) {
  const std::string title = html_escape(d.title.empty() ? "milabench report" : d.title);
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + title +
      "</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}"
      ".pass{color:#080}.fail{color:#c00}</style></head><body>\n<h1>" +
      title + "</h1>\n<table>\n<tr><th>test</th><th>weight</th><th>n</th><th>fail</th><th>perf</th>"
              "<th>std%</th><th>perf_adj</th>";
  if (d.has_compare)
    h += "<th>perf_base</th><th>perf_ratio</th><th>perf_base_adj</th><th>perf_ratio_adj</th>";
  h += "<th>perf 95% CI</th></tr>\n";
  for (const auto& r : d.rows) {
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                     html_escape(r.name), cell(r.weight, 0), cell(r.n, 0), cell(r.fail, 0),
                     cell(r.perf), cell(r.std_pct, 1), cell(r.perf_adj));
    if (d.has_compare)
      h += fmt::format("<td>{}</td><td>{}</td><td>{}</td><td>{}</td>", cell(r.perf_base),
                       cell(r.perf_ratio, 3), cell(r.perf_base_adj), cell(r.perf_ratio_adj, 3));
    h += "<td>" + (r.ci.valid() ? fmt::format("[{}, {}] {}", cell(r.ci.lo), cell(r.ci.hi), r.ci_method) : "-") +
         "</td></tr>\n";
  }
  h += "</table>\n<h2>Scores</h2>\n<table>\n";
  const std::string kinds = failure_kinds_text(d);
  h += fmt::format("<tr><td>failure rate</td><td>{}% ({}/{}) <span class=\"{}\">{}</span>{}</td></tr>\n",
                   cell(d.failure_rate * 100), cell(d.total_fail, 0), cell(d.total_n, 0),
                   d.failure_pass ? "pass" : "fail", d.failure_pass ? "PASS" : "FAIL",
                   kinds.empty() ? "" : " by kind: " + html_escape(kinds));
  h += fmt::format("<tr><td>score</td><td>{}</td></tr>\n", cell(d.score));
  if (d.score_ci.valid())
    h += fmt::format("<tr><td>score 95% CI</td><td>[{}, {}] (bootstrap over runs, weights fixed{})</td></tr>\n",
                     cell(d.score_ci.lo), cell(d.score_ci.hi),
                     d.score_ci_parametric ? "; normal draws for tests without per-run values" : "");
  if (d.has_compare) {
    h += fmt::format("<tr><td>baseline score</td><td>{}</td></tr>\n", cell(d.base_score));
    h += fmt::format("<tr><td>score ratio</td><td>{}</td></tr>\n", cell(d.score_ratio, 3));
  }
  if (d.price > 0) {
    h += fmt::format("<tr><td>price ($)</td><td>{}</td></tr>\n", cell(d.price));
    h += fmt::format("<tr><td>price/score</td><td>{}</td></tr>\n", cell(d.price / d.score, 4));
  }
  h += "</table>\n";
  std::string energy;  // only tests whose power was measured
  for (const auto& r : d.rows)
    if (std::isfinite(r.examples_per_watt))
      energy += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", html_escape(r.name),
                            cell(r.joules_per_example, 4), cell(r.examples_per_watt, 3));
  if (!energy.empty())
    h += "<h2>Energy (runs where power was measured)</h2>\n<table>\n<tr><th>test</th><th>J/example</th>"
         "<th>examples/W</th></tr>\n" + energy + "</table>\n";
  h += evidence_html(d);
  if (!d.gpus.empty()) {
    h += "<h2>Per-GPU perf relative to the best device</h2>\n";
    for (const auto& g : d.gpus) {
      h += "<h3>" + html_escape(g.test) + " (" + html_escape(g.stat) + ")</h3>\n<table>\n";
      for (const auto& [dev, v] : g.devices)
        h += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", html_escape(dev), cell(v, 3));
      h += "</table>\n";
    }
  }
  if (series && !series->empty()) {
    h += "<h2>Rate over time</h2>\n";
    for (const auto& [test, runs] : *series) {
      std::string svg = chart(test, runs);
      if (svg.empty()) continue;
      h += "<h3>" + html_escape(test) + "</h3>\n" + svg + "\n";
    }
  }
  return h + "</body></html>\n";
}

}  // namespace milabench
