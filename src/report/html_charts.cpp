// Inline SVG charts of the HTML report (html_parts.hpp). Sizes are in the
// viewBox's units; the page's CSS scales each chart to its column.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/html.hpp"
#include "report/html_parts.hpp"

namespace milabench::html {

namespace {

constexpr int kColours = 10;  // classes c0..c9 (line) and f0..f9 (fill) in the page's CSS
constexpr size_t kMaxPoints = 500;

// About n "nice" ticks (1, 2, 2.5, 5 x 10^k) covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int n) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / n, mag = std::pow(10, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return t;
}

// "0.25", "750", "12k", "1.5M".
std::string tick_label(double v) {
  const double a = std::fabs(v);
  if (a >= 1e6) return fmt::format("{:.4g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.4g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

// nice_ticks from 0 with one more tick when the last is below `top`, so the axis covers it.
std::vector<double> axis_ticks(double top, int n) {
  std::vector<double> t = nice_ticks(0, top, n);
  if (t.size() >= 2 && t.back() < top) t.push_back(t.back() + (t[1] - t[0]));
  return t;
}

std::string svg_open(double w, double h, const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" class=\"chart\" role=\"img\">"
      "<title>{}</title>",
      w, h, html_escape(title));
}

std::string text(double x, double y, const std::string& cls, const std::string& escaped) {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"{}\">{}</text>", x, y, cls, escaped);
}
std::string line(double x1, double y1, double x2, double y2, const std::string& cls) {
  return fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"{}\"/>", x1, y1, x2, y2,
                     cls);
}
std::string rect(double x, double y, double w, double h, const std::string& cls) {
  return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" class=\"{}\"/>", x, y,
                     std::max(0.0, w), std::max(0.0, h), cls);
}

// Legend names: "device 0", "device 0 #2" for a repeat, "rank 1" for a scaling rank, "run 3" without a device.
std::vector<std::string> legend_names(const std::vector<RateSeries>& runs) {
  std::map<std::string, int> seen;
  std::vector<std::string> out;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& s = runs[i];
    const size_t rank = s.label.rfind(":train_");
    std::string n = rank != std::string::npos ? "rank " + s.label.substr(rank + 7)
                    : s.device.empty()        ? "run " + std::to_string(i + 1)
                                              : "device " + s.device;
    const int k = ++seen[n];
    out.push_back(html_escape(n + (k > 1 ? " #" + std::to_string(k) : "") + (s.success ? "" : " (failed)")));
  }
  return out;
}

}  // namespace

std::string rate_chart(const std::string& test, const std::string& count_unit, const std::vector<RateSeries>& runs) {
  // Shaded: the span of the successful runs' summary windows (of the
  // unflagged ones when there are any: a short run's window would cover the
  // chart) and the longest warm-up.
  double xmax = 0, ymax = 0, win_lo = INFINITY, win_hi = 0, warm_hi = 0;
  bool any_clean = false;
  for (const auto& s : runs) any_clean |= s.success && !check_summary_window(test, s).flagged();
  for (const auto& s : runs) {
    xmax = std::max(xmax, s.rates.size() * s.sample_duration);
    for (double v : s.rates)
      if (std::isfinite(v)) ymax = std::max(ymax, v);
    const WindowFlag f = check_summary_window(test, s);
    if (!s.success || f.slices < 3 || (any_clean && f.flagged())) continue;
    win_lo = std::min(win_lo, f.window_begin * s.sample_duration);
    win_hi = std::max(win_hi, (f.slices - 2) * s.sample_duration);
    if (std::isfinite(f.warmup_s)) warm_hi = std::max(warm_hi, f.warmup_s);
  }
  if (!(xmax > 0 && ymax > 0)) return "";
  const auto names = legend_names(runs);
  const double W = 520, L = 56, R = 14, T = 24, PH = 170;
  const int per_row = 4;
  const size_t entries = runs.size() + 2;
  const double legend_y = T + PH + 48, H = legend_y + 16 * ((entries + per_row - 1) / per_row) + 4;
  const std::vector<double> yt = axis_ticks(ymax, 5), xt = axis_ticks(xmax, 8);
  const double ytop = std::max(ymax, yt.back()), xright = std::max(xmax, xt.back());
  auto X = [&](double t) { return L + t / xright * (W - L - R); };
  auto Y = [&](double v) { return T + PH - v / ytop * PH; };
  const std::string unit = per_second(count_unit);
  std::string s = svg_open(W, H, test + ": rate (" + unit + ") over time");
  if (win_hi > win_lo) s += rect(X(win_lo), T, X(win_hi) - X(win_lo), PH, "win");
  if (warm_hi > 0) s += rect(L, T, X(warm_hi) - L, PH, "warm");
  for (double v : yt) s += line(L, Y(v), W - R, Y(v), "grid") + text(L - 5, Y(v) + 3.5, "tick ta-end", tick_label(v));
  for (double t : xt)
    s += line(X(t), T + PH, X(t), T + PH + 4, "axis") + text(X(t), T + PH + 15, "tick ta-mid", tick_label(t));
  s += line(L, T, L, T + PH, "axis") + line(L, T + PH, W - R, T + PH, "axis");
  s += text(L - 5, T - 10, "atitle", "rate (" + html_escape(unit) + ")");
  s += text((L + W - R) / 2, T + PH + 32, "atitle ta-mid", "time since the start of measuring (s)");
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const size_t stride = std::max<size_t>(1, (r.rates.size() + kMaxPoints - 1) / kMaxPoints);
    std::string pts;
    for (size_t k = 0; k < r.rates.size(); k += stride)
      if (std::isfinite(r.rates[k]))
        pts += fmt::format("{:.1f},{:.1f} ", X((k + 1) * r.sample_duration), Y(r.rates[k]));
    s += fmt::format("<polyline class=\"line c{}{}\" points=\"{}\"><title>{}</title></polyline>", i % kColours,
                     r.success ? "" : " failed", pts, html_escape(r.label));
  }
  auto at = [&](size_t k) { return std::make_pair(L + (k % per_row) * 116.0, legend_y + 16.0 * (k / per_row)); };
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto [x, y] = at(i);
    s += line(x, y - 4, x + 16, y - 4, fmt::format("line c{}", i % kColours)) + text(x + 20, y, "legend", names[i]);
  }
  const auto [wx, wy] = at(runs.size());
  s += rect(wx, wy - 9, 16, 10, "win") + text(wx + 20, wy, "legend", "summary window");
  const auto [hx, hy] = at(runs.size() + 1);
  s += rect(hx, hy - 9, 16, 10, "warm") + text(hx + 20, hy, "legend", "warm-up");
  return s + "</svg>";
}

std::string ratio_chart(const ReportData& d) {
  std::vector<const ReportRow*> rows;
  double lo = 1, hi = 1;
  for (const auto& r : d.rows) {
    if (!(std::isfinite(r.perf_ratio) && r.perf_ratio > 0)) continue;
    rows.push_back(&r);
    lo = std::min(lo, r.ratio_ci.valid() && r.ratio_ci.lo > 0 ? std::min(r.ratio_ci.lo, r.perf_ratio) : r.perf_ratio);
    hi = std::max(hi, r.ratio_ci.valid() ? std::max(r.ratio_ci.hi, r.perf_ratio) : r.perf_ratio);
  }
  if (!d.has_compare || rows.empty()) return "";
  lo /= 1.1, hi *= 1.1;
  const double W = 1000, LBL = 230, R = 160, T = 26, RH = 22, PH = RH * rows.size(), H = T + PH + 46;
  const double l0 = std::log(lo), span = std::log(hi) - l0;
  auto X = [&](double v) { return LBL + (std::log(v) - l0) / span * (W - LBL - R); };
  std::vector<double> ticks;
  if (hi / lo > 10) {
    for (double p = std::floor(std::log10(lo)); p <= std::ceil(std::log10(hi)); ++p)
      for (double m : hi / lo > 1000 ? std::vector<double>{1} : std::vector<double>{1, 2, 5})
        if (m * std::pow(10, p) >= lo && m * std::pow(10, p) <= hi) ticks.push_back(m * std::pow(10, p));
  } else {
    for (double t : nice_ticks(lo, hi, 6))
      if (t > 0) ticks.push_back(t);
  }
  std::string s = svg_open(W, H, "perf / baseline perf per test, with 95% intervals");
  for (double t : ticks)
    s += line(X(t), T - 4, X(t), T + PH, "grid") + text(X(t), T + PH + 15, "tick ta-mid", tick_label(t) + "×");
  for (size_t i = 0; i < rows.size(); ++i) {
    const ReportRow& r = *rows[i];
    const double y = T + i * RH, cy = y + RH / 2;
    // Verdicts may carry detail ("slower by 4% ..."): the first word decides.
    const std::string cls = r.verdict.rfind("faster", 0) == 0   ? "bar fast"
                            : r.verdict.rfind("slower", 0) == 0 ? "bar slow"
                                                                : "bar same";
    s += text(LBL - 8, cy + 4, "blabel ta-end", html_escape(r.name));
    s += rect(X(std::min(1.0, r.perf_ratio)), y + 4, std::fabs(X(r.perf_ratio) - X(1)), RH - 8, cls);
    if (r.ratio_ci.valid() && r.ratio_ci.lo > 0)
      s += line(X(r.ratio_ci.lo), cy, X(r.ratio_ci.hi), cy, "whisk") +
           line(X(r.ratio_ci.lo), cy - 5, X(r.ratio_ci.lo), cy + 5, "whisk") +
           line(X(r.ratio_ci.hi), cy - 5, X(r.ratio_ci.hi), cy + 5, "whisk");
    s += text(W - R + 8, cy + 4, "blabel",
              fmt::format("{:.3g}× {}", r.perf_ratio,
                          html_escape(r.verdict.size() <= 16 ? r.verdict : r.verdict.substr(0, r.verdict.find(' ')))));
  }
  s += line(X(1), T - 8, X(1), T + PH, "base") + text(X(1), T - 12, "tick ta-mid", "baseline (1×)");
  s += line(LBL, T + PH, W - R, T + PH, "axis");
  s += text((LBL + W - R) / 2, T + PH + 34, "atitle ta-mid",
            "perf / baseline perf (log scale); bars from 1×, whiskers: 95% interval; colour: verdict");
  return s + "</svg>";
}

}  // namespace milabench::html
