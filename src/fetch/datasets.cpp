#include "fetch/datasets.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sys/staged_folder.hpp"

namespace milabench::fetch {
namespace fs = std::filesystem;

namespace {

// The datasets that have a download source.
std::string downloadable_names() {
  std::string out;
  for (const auto& s : dataset_sources())
    if (!s.files.empty()) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

std::uint64_t size_or_zero(const fs::path& p) {
  std::error_code ec;
  auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Unpacks one downloaded file into `staging`/<subdir>. Returns "" or one error line.
std::string unpack(const SourceFile& f, const fs::path& cached, const fs::path& staging, std::uint64_t max_bytes) {
  fs::path into = f.subdir.empty() ? staging : staging / f.subdir;
  fs::create_directories(into);
  ExtractResult r;
  switch (f.unpack) {
    case Unpack::Keep:
      fs::copy_file(cached, into / f.filename);
      return "";
    case Unpack::Gunzip: {
      std::string name = f.filename;
      if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0) name.resize(name.size() - 3);
      r = gunzip_file(cached.string(), (into / name).string(), max_bytes);
      break;
    }
    case Unpack::Extract: {
      ExtractOptions o;
      o.strip_components = f.strip_components;
      o.max_bytes = max_bytes;  // a decompression bomb stops here
      r = extract_into(cached.string(), into.string(), o);
      break;
    }
  }
  return r.ok ? "" : r.error;
}

// Bytes the download needs free: the unpacked dataset, the reserve, and
// what is still to be fetched into `cache` (partial files count as had).
std::uint64_t space_needed(const DatasetSource& src, const fs::path& cache, const DownloadOptions& options) {
  std::uint64_t need = src.disk_bytes + options.reserve_bytes;
  for (const auto& f : src.files) {
    std::uint64_t have = size_or_zero(cache / f.filename);
    if (!have) have = size_or_zero(cache / (f.filename + ".part"));
    if (f.remote.size > have) need += f.remote.size - have;
  }
  return need;
}

// Downloads every file of `src` into `cache`, one progress line each on
// `out`; appends each file's record (url, file, bytes, sha256, verified) to
// `files` and counts the unverified ones. False (the error on `err`) at the
// first file that fails.
bool fetch_files(const DatasetSource& src, const fs::path& cache, const DownloadOptions& options, std::ostream& out,
                 std::ostream& err, nlohmann::ordered_json& files, int& unverified) {
  for (const auto& f : src.files) {
    out << fmt::format("{}: fetching {}\n", src.name, f.remote.url);
    DownloadResult d = download_file(f.remote, (cache / f.filename).string(), options);
    if (!d.ok) {
      err << d.error << "\n";
      return false;
    }
    if (!d.verified) ++unverified;
    out << fmt::format("{}: {} {} sha256 {} ({})\n", src.name, f.filename, human_bytes(d.bytes), d.sha256,
                       d.verified ? "verified" : "unverified: no published hash in the table, recorded");
    files.push_back({{"url", f.remote.url},
                     {"file", f.filename},
                     {"bytes", d.bytes},
                     {"sha256", d.sha256},
                     {"verified", d.verified}});
  }
  return true;
}

}  // namespace

int download_dataset_from(const DatasetSource& src, const std::string& dataroot, const DownloadOptions& options,
                          std::ostream& out, std::ostream& err) {
  const fs::path root(dataroot);
  const fs::path final_dir = root / src.dir;
  const fs::path cache = root / ".downloads" / src.dir;
  std::error_code ec;
  if (fs::exists(final_dir / kProvenanceFile, ec)) {
    out << fmt::format("{}: already downloaded in {} (remove it to download again)\n", src.name, final_dir.string());
    return 0;
  }
  if (fs::exists(fs::symlink_status(final_dir, ec))) {
    err << fmt::format(
        "milarun dataset {} --download: {} already exists and was not made by --download "
        "(synthetic data?); move it aside to download the real data\n",
        src.name, final_dir.string());
    return 2;
  }
  try {
    fs::create_directories(cache);
    const std::uint64_t need = space_needed(src, cache, options);
    DiskSpace& disk = options.disk ? *options.disk : system_disk_space();
    std::uint64_t avail = disk.available_bytes(root.string());
    if (avail < need) {
      err << fmt::format(
          "milarun dataset {} --download: not enough disk space in {}: need {}, {} free; "
          "free some space or choose another data root (-d)\n",
          src.name, root.string(), human_bytes(need), human_bytes(avail));
      return 1;
    }

    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    int unverified = 0;
    if (!fetch_files(src, cache, options, out, err, files, unverified)) return 1;

    StagedFolder staging(final_dir, src.name, "download");  // removed unless published
    for (const auto& f : src.files) {
      out << fmt::format("{}: unpacking {}\n", src.name, f.filename);
      // Unpacked content beyond twice the dataset's known size is refused.
      if (auto e = unpack(f, cache / f.filename, staging.path(), 2 * src.disk_bytes + (16ull << 20)); !e.empty()) {
        err << e << "\n";
        return 1;
      }
    }
    nlohmann::ordered_json prov = {
        {"dataset", src.name}, {"source", "download"}, {"downloaded_at", utc_now()}, {"files", files}};
    if (!src.note.empty()) prov["note"] = src.note;
    std::ofstream(staging.path() / kProvenanceFile) << prov.dump(2) << "\n";
    staging.publish(/*replace=*/false);
    fs::remove_all(cache, ec);            // the archives are no longer needed once unpacked
    fs::remove(root / ".downloads", ec);  // only when no other dataset's download is pending there
    out << fmt::format(
        "{}: installed in {}{}\n", src.name, final_dir.string(),
        unverified ? fmt::format(" ({} file(s) unverified, hashes recorded in {})", unverified, kProvenanceFile) : "");
    return 0;
  } catch (const std::exception& e) {
    err << fmt::format("milarun dataset {} --download: {}\n", src.name, e.what());
    return 1;
  }
}

DatasetSource with_mirror(const DatasetSource& source, const std::string& mirror) {
  std::string base = mirror;
  while (!base.empty() && base.back() == '/') base.pop_back();
  DatasetSource out = source;
  for (auto& f : out.files) f.remote.url = base + "/" + out.dir + "/" + f.filename;
  return out;
}

int download_dataset(const std::string& name, const std::string& dataroot, std::ostream& out, std::ostream& err) {
  const DatasetSource* src = find_dataset_source(name);
  if (!src) {
    err << fmt::format("milarun dataset {} --download: unknown dataset (downloadable: {})\n", name,
                       downloadable_names());
    return 2;
  }
  if (src->files.empty()) {
    err << fmt::format(
        "milarun dataset {} --download: no download source ({}); run it without --download to "
        "generate it\n",
        src->name, src->note);
    return 2;
  }
  const char* mirror = std::getenv("MILARUN_DOWNLOAD_MIRROR");
  if (!mirror || !*mirror) return download_dataset_from(*src, dataroot, DownloadOptions{}, out, err);
  DatasetSource mirrored = with_mirror(*src, mirror);
  out << fmt::format("{}: from the mirror {} (MILARUN_DOWNLOAD_MIRROR)\n", src->name, mirror);
  return download_dataset_from(mirrored, dataroot, DownloadOptions{}, out, err);
}

}  // namespace milabench::fetch
