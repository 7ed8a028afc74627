// Trend charts of the results store's history (trend.hpp): per test, perf
// over suite runs with its 95% interval, regressions in red. Inline SVG,
// styled by the report page's classes (html.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/html.hpp"
#include "report/trend.hpp"

namespace milabench {

namespace {

constexpr double kW = 520, kH = 240, kLeft = 62, kRight = 14, kTop = 12, kBottom = 44;

// About 5 round ticks from 0 to at least `top`.
std::vector<double> ticks_to(double top) {
  const double raw = top / 5, mag = std::pow(10, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (double v = 0; v < top + step; v += step) t.push_back(v);
  return t;
}

std::string trend_chart(const TestTrend& t) {
  double top = 0;
  int finite = 0;
  for (const auto& p : t.points) {
    if (!std::isfinite(p.perf)) continue;
    ++finite;
    top = std::max({top, p.perf, std::isfinite(p.hi) ? p.hi : 0.0});
  }
  if (finite < 2 || !(top > 0)) return "";
  const auto ticks = ticks_to(top);
  const double ymax = ticks.back(), pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto x = [&](std::size_t i) { return kLeft + pw * (t.points.size() == 1 ? 0.5 : double(i) / (t.points.size() - 1)); };
  auto y = [&](double v) { return kTop + ph * (1 - v / ymax); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" class=\"chart\" role=\"img\"><title>{} "
      "perf over suite runs</title>",
      kW, kH, html_escape(t.test));
  for (double v : ticks)
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/><text x=\"{:.1f}\" "
        "y=\"{:.1f}\" class=\"tick ta-end\">{:.4g}</text>",
        kLeft, y(v), kW - kRight, y(v), kLeft - 4, y(v) + 3, v);
  s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" class=\"axis\"/>", kLeft, kTop,
                   kTop + ph);
  std::string path;
  for (std::size_t i = 0; i < t.points.size(); ++i) {
    const TrendPoint& p = t.points[i];
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick ta-mid\">#{}</text>", x(i), kTop + ph + 14,
                     p.suite_id);
    if (!std::isfinite(p.perf)) continue;
    path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", x(i), y(p.perf));
    if (std::isfinite(p.lo) && std::isfinite(p.hi))
      s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" class=\"whisk\"/>", x(i),
                       y(std::max(0.0, p.lo)), y(p.hi));
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" class=\"{}\"><title>{}</title></circle>", x(i),
                     y(p.perf), p.regression ? "pt reg" : "pt",
                     html_escape(fmt::format("#{} {}: {:.4g}/s{}", p.suite_id, p.when, p.perf,
                                             p.verdict.empty() ? "" : " — " + p.verdict)));
  }
  s += "<path d=\"" + path + "\" class=\"line c0\"/>";
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"atitle ta-mid\">suite run (oldest to newest)</text>",
                   kLeft + pw / 2, kH - 8);
  s += fmt::format(
      "<text x=\"12\" y=\"{:.1f}\" class=\"atitle ta-mid\" transform=\"rotate(-90 12 {:.1f})\">examples/s</text>",
      kTop + ph / 2, kTop + ph / 2);
  return s + "</svg>";
}

}  // namespace

std::string trend_charts_html(const std::vector<TestTrend>& trends) {
  std::string out;
  for (const auto& t : trends) {
    const std::string svg = trend_chart(t);
    if (svg.empty()) continue;
    const bool reg = !t.points.empty() && t.points.back().regression;
    int contended = 0;
    for (const auto& p : t.points) contended += p.contended;
    std::string about = t.machine + ", arguments " + t.config + (t.inputs.empty() ? "" : ", " + t.inputs);
    if (contended) about += "; " + std::to_string(contended) + " contended run(s) left out";
    out += "<div class=\"fig\"><h3>" + html_escape(t.test) + (reg ? " <span class=\"bad\">REGRESSION</span>" : "") +
           "</h3><p class=\"small\">" + html_escape(about) + "</p>\n" + svg + "</div>\n";
  }
  return out.empty() ? "" : "<div class=\"charts\">\n" + out + "</div>\n";
}

}  // namespace milabench
