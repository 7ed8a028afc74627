#include "store/recorder.hpp"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "report/summary.hpp"
#include "results/input_checks.hpp"
#include "results/result_scan.hpp"
#include "store/run_row.hpp"

namespace milabench::store {
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// The suite's name: the first result name's prefix ("cpu" of "cpu.vae").
std::string suite_name_of(const json& doc) {
  const std::string name = doc.value("name", std::string());
  return name.substr(0, name.find('.'));
}

// The machine a result document names ("hostname"); "" when it names none.
std::string machine_of(const json& doc) {
  const json h = doc.value("hostname", json());
  return h.is_string() ? h.get<std::string>() : "";
}

}  // namespace

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string absolute_dir(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? path : p.string();
}

std::optional<SuiteRunInfo> folder_identity(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  std::optional<SuiteRunInfo> out;
  for (const auto& path : json_files_in(dir, /*recursive=*/true)) {
    try {
      const json doc = read_json_file(path, kMaxResultFileBytes);
      run_row(file_name(path), doc);  // a result document? (throws the reader's reason)
      if (!out) out = SuiteRunInfo{"", absolute_dir(dir), suite_name_of(doc), "", "", ""};
      out->machine = machine_of(doc);
      if (!out->machine.empty()) break;
    } catch (const std::exception&) {  // not a result: import_directory names it
    }
  }
  if (out && out->machine.empty()) out->machine = host_name();
  return out;
}

ImportCounts import_directory(ResultStore& store, const std::string& dir, std::ostream& warn) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::invalid_argument(dir + ": not a directory (pass a results folder)");
  std::vector<std::pair<std::string, json>> docs;
  ImportCounts n;
  std::string machine;
  for (const auto& path : json_files_in(dir, /*recursive=*/true)) {
    try {
      json doc = read_json_file(path, kMaxResultFileBytes);
      run_row(file_name(path), doc);  // a result document? (throws the reader's reason)
      if (machine.empty()) machine = machine_of(doc);
      docs.emplace_back(file_name(path), std::move(doc));
    } catch (const std::exception& e) {
      warn << terminal_safe("warning: not imported: " + path + ": " + e.what()) << "\n";
      ++n.skipped;
    }
  }
  if (docs.empty()) return n;
  if (machine.empty()) machine = host_name();
  std::optional<std::int64_t> suite;
  for (std::size_t i = 0; i < docs.size() && !suite; ++i) suite = store.suite_of_run(machine, docs[i].first);
  if (!suite) suite = store.suite_run({machine, absolute_dir(dir), suite_name_of(docs.front().second), "", "", ""});
  for (const auto& [file, doc] : docs) (store.record_run(*suite, machine, file, doc) ? n.added : n.present)++;
  return n;
}

SuiteRecorder::SuiteRecorder(const std::string& spec, const std::string& outdir, const std::string& profile,
                             std::ostream& err)
    : spec_(spec), outdir_(outdir), err_(err) {
  if (spec.empty()) return;
  try {
    store_ = open_store(spec);
    machine_ = host_name();
    const std::string suite = fs::path(profile).stem().string();
    suite_id_ = store_->suite_run({machine_, absolute_dir(outdir), suite, profile, utc_now_text(), ""});
  } catch (const std::exception& e) {
    disable(e.what());
  }
}

void SuiteRecorder::disable(const std::string& why) {
  store_.reset();
  err_ << terminal_safe("warning: results store " + why +
                        "; the suite goes on writing its JSON files only (add them later: milarun db import " +
                        outdir_ + ")")
       << "\n";
}

void SuiteRecorder::record_new() {
  if (!store_) return;
  for (const auto& path : json_files_in(outdir_, /*recursive=*/true)) {
    const std::string file = file_name(path);
    if (seen_.count(file)) continue;
    json doc;
    try {
      doc = read_json_file(path, kMaxResultFileBytes);
      run_row(file, doc);
    } catch (const std::exception&) {
      seen_.insert(file);  // not a result file: the summary says so
      continue;
    }
    try {
      store_->record_run(suite_id_, machine_, file, doc);
      seen_.insert(file);
    } catch (const std::exception& e) {
      disable(e.what());
      return;
    }
  }
}

void SuiteRecorder::finish() {
  record_new();
  if (!store_) return;
  try {
    store_->set_ended(suite_id_, utc_now_text());
  } catch (const std::exception& e) {
    disable(e.what());
  }
}

}  // namespace milabench::store
