#include "report/model_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/evidence_json.hpp"
#include "report/html.hpp"
#include "report/report_data.hpp"
#include "report/summary.hpp"
#include "results/input_checks.hpp"

namespace milabench {

using evidence_json::num;
using evidence_json::sub;
using nlohmann::json;

namespace {

std::string str_or_empty(const json& v) { return v.is_string() ? v.get<std::string>() : ""; }

}  // namespace

void ModelFiguresAccumulator::add(const json& metrics) {
  const json& mfu_doc = sub(metrics, "mfu");
  if (mfu_doc.is_object()) {
    any = true;
    const double v = num(mfu_doc, "value");
    if (std::isfinite(v) && v >= 0) {
      mfu.push_back(v);
      if (mfu_peak.empty()) mfu_peak = str_or_empty(sub(mfu_doc, "peak"));
    } else if (mfu_why.empty()) {
      mfu_why = str_or_empty(sub(mfu_doc, "why"));
    }
  }
  const json& mem = sub(metrics, "peak_memory");
  if (mem.is_object()) {
    any = true;
    const double b = num(mem, "bytes");
    if (std::isfinite(b) && b >= 0 && b > peak_bytes) {
      peak_bytes = b;
      peak_source = str_or_empty(sub(mem, "source"));
    }
  }
}

json ModelFiguresAccumulator::to_json() const {
  return {{"mfu", mfu.empty() ? json(nullptr) : compute_stats(mfu)},
          {"mfu_peak", mfu_peak},
          {"mfu_why", mfu.empty() ? mfu_why : ""},
          {"peak_memory_bytes", peak_bytes >= 0 ? json(peak_bytes) : json(nullptr)},
          {"peak_memory_source", peak_source}};
}

ModelFigures read_model_figures(const json& entry) {
  ModelFigures m;
  const json& doc = sub(entry, "model");
  if (!doc.is_object()) return m;
  m.present = true;
  const double mean = num(sub(doc, "mfu"), "mean");
  m.mfu = std::isfinite(mean) && mean >= 0 ? mean : NAN;
  m.mfu_note = std::isfinite(m.mfu) ? str_or_empty(sub(doc, "mfu_peak")) : str_or_empty(sub(doc, "mfu_why"));
  const double bytes = num(doc, "peak_memory_bytes");
  m.peak_mib = std::isfinite(bytes) && bytes >= 0 ? bytes / (1024.0 * 1024.0) : NAN;
  m.peak_source = str_or_empty(sub(doc, "peak_memory_source"));
  return m;
}

namespace {

std::string mfu_text(const ModelFigures& m) { return std::isfinite(m.mfu) ? fmt::format("{:.1f}%", m.mfu * 100) : "-"; }
std::string mib_text(const ModelFigures& m) {
  return std::isfinite(m.peak_mib) ? fmt::format("{:.0f}", m.peak_mib) : "-";
}
std::string rate_unit(const ReportRow& r) { return (r.count_unit.empty() ? "examples" : r.count_unit) + "/s"; }

}  // namespace

void print_model_figures(const ReportData& d, std::ostream& out) {
  if (std::none_of(d.rows.begin(), d.rows.end(), [](const ReportRow& r) { return r.model.present; })) return;
  out << fmt::format("\n{:<28} {:>14} {:<10} {:>7} {:>12}  {}\n", "model figures", "perf", "unit", "MFU", "peak MiB",
                     "MFU over / peak memory from");
  for (const auto& r : d.rows) {
    if (!r.model.present) continue;
    out << fmt::format("{:<28} {:>14.2f} {:<10} {:>7} {:>12}  {} / {}\n", terminal_safe(r.name), r.perf,
                       terminal_safe(rate_unit(r)), mfu_text(r.model), mib_text(r.model),
                       terminal_safe(r.model.mfu_note.empty() ? "-" : r.model.mfu_note),
                       terminal_safe(r.model.peak_source.empty() ? "-" : r.model.peak_source));
  }
}

std::string model_figures_html(const ReportData& d) {
  std::string rows;
  for (const auto& r : d.rows)
    if (r.model.present)
      rows += "<tr><td>" + html_escape(r.name) + "</td><td>" + fmt::format("{:.2f}", r.perf) + " " +
              html_escape(rate_unit(r)) + "</td><td>" + mfu_text(r.model) + "</td><td>" +
              html_escape(r.model.mfu_note) + "</td><td>" + mib_text(r.model) + "</td><td>" +
              html_escape(r.model.peak_source) + "</td></tr>\n";
  if (rows.empty()) return "";
  return "<h3>Model figures (MFU and peak memory)</h3>\n<table><tr><th>test</th><th>perf</th><th>MFU</th>"
         "<th>MFU over</th><th>peak memory (MiB)</th><th>measured by</th></tr>\n" +
         rows + "</table>\n";
}

}  // namespace milabench
