#include "report/export.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <vector>

#include "report/marks.hpp"
#include "report/report.hpp"

namespace milabench {

namespace {

const char* const kTextColumns[] = {"test_used", "margin_source", "vs_margin", "verdict"};

// Header names and per-row values, shared by both formats; with compare the
// last four columns are text (kTextColumns).
std::vector<std::string> header(const ReportData& d) {
  std::vector<std::string> h = {"test", "weight", "n", "fail", "perf", "std_pct", "perf_adj", "ci95_lo", "ci95_hi"};
  if (d.has_compare)
    for (const char* c : {"perf_base", "perf_ratio", "perf_base_adj", "perf_ratio_adj", "p_value", "diff_pct",
                          "diff_ci95_lo", "diff_ci95_hi", "margin_pct", "margin_runs", "runs_to_decide"})
      h.push_back(c);
  if (d.has_compare)
    for (const char* c : kTextColumns) h.push_back(c);
  return h;
}

std::vector<const std::string*> texts(const ReportRow& r) {
  return {&r.sig.method, &r.margin_source, &r.matters, &r.verdict};
}

std::vector<double> numbers(const ReportData& d, const ReportRow& r) {
  std::vector<double> v = {r.weight, r.n, r.fail, r.perf, r.std_pct, r.perf_adj, r.ci.lo, r.ci.hi};
  if (d.has_compare)
    for (double x : {r.perf_base, r.perf_ratio, r.perf_base_adj, r.perf_ratio_adj, r.sig.p_value, r.diff_pct,
                     r.diff_ci_pct.lo, r.diff_ci_pct.hi, r.noise_floor_pct, r.margin_runs, r.runs_needed})
      v.push_back(x);
  return v;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string md_field(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|')
      o += "\\|";
    else if (c == '\n' || c == '\r')
      o += ' ';
    else
      o += c;
  }
  return o;
}

}  // namespace

std::string table_csv(const ReportData& d) {
  std::string out;
  const auto h = header(d);
  for (size_t i = 0; i < h.size(); ++i) out += (i ? "," : "") + h[i];
  out += "\r\n";
  for (const auto& r : d.rows) {
    out += csv_field(r.name);
    for (double x : numbers(d, r)) out += "," + (std::isfinite(x) ? fmt::format("{}", x) : std::string());
    if (d.has_compare)
      for (const std::string* t : texts(r)) out += "," + csv_field(*t);
    out += "\r\n";
  }
  return out;
}

std::string table_markdown(const ReportData& d) {
  const auto h = header(d);
  const size_t first_text = d.has_compare ? h.size() - std::size(kTextColumns) : h.size();
  std::string out = "|";
  for (const auto& c : h) out += " " + c + " |";
  out += "\n|";
  for (size_t i = 0; i < h.size(); ++i) out += i == 0 || i >= first_text ? ":---|" : "---:|";
  out += "\n";
  for (const auto& r : d.rows) {
    const std::string marks = row_marks(r) + (compare_mark(r).empty() ? "" : " [" + compare_mark(r) + "]");
    out += "| " + md_field(r.name + (marks.empty() ? "" : " " + marks)) + " |";
    const auto v = numbers(d, r);
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string& col = h[i + 1];
      const int prec =
          (col == "weight" || col == "n" || col == "fail" || col == "margin_runs" || col == "runs_to_decide") ? 0
          : (col == "perf_ratio" || col == "perf_ratio_adj")                                                  ? 3
          : col == "std_pct" || col.rfind("diff", 0) == 0 || col == "margin_pct"                              ? 1
                                                                                                              : 2;
      out += " " +
             (col == "p_value"                                                     ? p_cell(v[i])
              : col == "ci95_lo" && !r.ci.valid() && r.ci_method == "too few runs" ? r.ci_method
              : std::isfinite(v[i])                                                ? fmt::format("{:.{}f}", v[i], prec)
                                                                                   : "-") +
             " |";
    }
    if (d.has_compare)
      for (const std::string* t : texts(r)) out += " " + (t->empty() ? std::string("-") : md_field(*t)) + " |";
    out += "\n";
  }
  out += fmt::format("\n**score**: {}", std::isfinite(d.score) ? fmt::format("{:.2f}", d.score) : "-");
  if (d.score_ci.valid())
    out += fmt::format(" (95% CI {:.2f} to {:.2f}: {})", d.score_ci.lo, d.score_ci.hi, md_field(d.score_ci_note));
  if (!d.score_zero_why.empty()) out += " (" + md_field(d.score_zero_why) + ")";
  if (d.has_compare && std::isfinite(d.base_score))
    out += fmt::format(" · baseline {:.2f} · ratio {:.3f}", d.base_score, d.score_ratio);
  return out + "\n";
}

}  // namespace milabench
