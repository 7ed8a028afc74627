// Where the original milabench datasets come from, and `milarun dataset NAME
// --download`: fetch, verify, unpack into <dataroot>/<dir>, all or nothing.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "fetch/downloader.hpp"
#include "fetch/extract.hpp"

namespace milabench::fetch {

enum class Unpack {
  Keep,     // the downloaded file is installed as is
  Gunzip,   // a single .gz file, decompressed (name without ".gz")
  Extract,  // a tar (any compression) or zip archive
};

struct SourceFile {
  RemoteFile remote;     // url, sha256 ("" = not known: recorded, reported unverified), size (0 = unknown)
  std::string filename;  // name of the downloaded file in the cache
  Unpack unpack = Unpack::Extract;
  std::string subdir;        // where it is unpacked, relative to the dataset directory ("" = the directory itself)
  int strip_components = 0;  // for Extract: leading path components dropped
};

// One dataset of the suite, the one table of them (dataset_table.cpp): the
// name the profiles use, where it lives under the data root, what its reader
// opens there and where the original's files come from. Torch-free; the
// reader and generator are hooked by `name` in data/registry.cpp.
struct DatasetSource {
  std::string name;                  // "wiki2"; also "milarun.datasets:wiki2" and "milabench.datasets:wiki2"
  std::vector<std::string> aliases;  // other accepted names ("bsds500_reso", "wikitext-2")
  std::string dir;                   // directory under the data root, as in the original's layout
  std::string layout;                // what the reader opens under the data root (for `milarun list`)
  std::uint64_t disk_bytes;          // space the unpacked dataset takes (the original README's du table)
  std::vector<SourceFile> files;     // empty: not downloadable (`note` says why), generated only
  std::string note;                  // what the original did beyond these files, if anything
};

// Every dataset of this build (public URLs). Hashes are filled only where
// they are known from published checksums; never invented.
const std::vector<DatasetSource>& dataset_sources();

// Entry for a name or alias, with or without the "milarun.datasets:" /
// "milabench.datasets:" prefix; null when none.
const DatasetSource* find_dataset_source(const std::string& name_or_alias);

// File holding what was downloaded (URLs, hashes, verified or not), written
// into the dataset directory; its presence means the directory is complete.
inline constexpr const char* kProvenanceFile = ".download.json";

// Downloads `name` into `dataroot`. Returns 0 on success (also when already
// downloaded), 1 on a download/verify/extract failure (one line on `err`,
// no dataset directory left half made; partial downloads are kept in
// <dataroot>/.downloads to resume), 2 for an unknown name, a dataset with
// no download source, or a directory that is in the way. Progress lines go
// to `out`. With MILARUN_DOWNLOAD_MIRROR set (a URL), every file comes from
// the mirror (with_mirror), hashes unchanged.
int download_dataset(const std::string& name, const std::string& dataroot, std::ostream& out, std::ostream& err);

// `source` with each file's URL replaced by MIRROR/<dir>/<filename> (a local
// copy of the original files, laid out like that).
DatasetSource with_mirror(const DatasetSource& source, const std::string& mirror);

// download_dataset for an explicit source and options (tests use a local server and a
// fake DiskSpace here).
int download_dataset_from(const DatasetSource& source, const std::string& dataroot, const DownloadOptions& options,
                          std::ostream& out, std::ostream& err);

}  // namespace milabench::fetch
