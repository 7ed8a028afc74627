#pragma once
// How a test's work differs from the original's, as the report shows it
// beside the test's numbers: opt-in shortcuts (less work, e.g.
// reduced_decode: docs/fidelity.md) and stand-ins (a different environment
// or data, results/stand_ins.hpp: docs/workloads.md). The one place that
// reads them from a summary entry and words them, for the text, HTML and
// Markdown reports.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/report_data.hpp"

namespace milabench {

// The names a summary entry lists under inventory[key] ("shortcuts",
// "stand_ins"; each value one run's names joined by ","; "none" dropped),
// sorted, each once; [] when there are none.
std::vector<std::string> inventory_names(const nlohmann::json& entry, const std::string& key);

// "[less work: reduced_decode] [stand-in: pong_like_game] [contended: 1
// run(s)]", "" when the test ran the original's work on devices of its own
// (contended: results/result_record.hpp kContendedShare).
std::string row_marks(const ReportRow& r);

// With compare: why the ratio compares different work, e.g. "stand-in on
// this side only: pong_like_game", "opt-in shortcut on the baseline's side
// only: reduced_decode", "arguments (--batch-size 32) here, (--batch-size
// 64) in the baseline" (when both sides record them); "" when both sides
// ran the same work.
std::string compare_mark(const ReportRow& r);

// One sentence per test that used shortcuts or stand-ins, for the lines
// above the table; none when every test ran the original's work.
std::vector<std::string> fidelity_lines(const ReportData& d);

}  // namespace milabench
