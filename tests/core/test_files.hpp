// File helpers shared by the core and workload tests: whole-file reads and
// writes, the message of a refusal, archives built in memory (the formats the fetch side unpacks) and folders of
// result documents.
#pragma once
#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace milabench::test {

// A fresh folder (temp dir / "<prefix>_<pid>", emptied first) holding each
// document as r<i>.json; the test removes it.
inline std::filesystem::path folder_of_results(const std::string& prefix, const std::vector<nlohmann::json>& docs) {
  std::filesystem::path d = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  for (std::size_t i = 0; i < docs.size(); ++i) std::ofstream(d / ("r" + std::to_string(i) + ".json")) << docs[i];
  return d;
}

// The file's bytes; "" when it cannot be opened.
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Writes `text` as the whole of `path`, its folders made first.
inline void write_text(const std::filesystem::path& p, const std::string& text) {
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// The message of what `f` throws as a std::exception ("" when nothing).
template <class F>
std::string thrown_message(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

using ArchiveMembers = std::vector<std::pair<std::string, std::string>>;  // path, content

// An archive in memory: "zip", "tgz" (gzip'ed tar) or "gz" (the first member,
// gzip'ed, no container).
inline std::string pack_archive(const std::string& format, const ArchiveMembers& members) {
  struct archive* a = archive_write_new();
  if (format == "zip") {
    archive_write_set_format_zip(a);
  } else if (format == "tgz") {
    archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  } else {
    archive_write_set_format_raw(a);
    archive_write_add_filter_gzip(a);
  }
  size_t need = 1 << 16;
  for (const auto& m : members) need += m.second.size() + 1024;
  std::string buf(need * 2, '\0');
  size_t used = 0;
  archive_write_open_memory(a, buf.data(), buf.size(), &used);
  for (const auto& [path, content] : members) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, path.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
    archive_write_header(a, e);
    archive_write_data(a, content.data(), content.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  buf.resize(used);
  return buf;
}

}  // namespace milabench::test
