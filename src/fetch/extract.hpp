// Safe archive extraction (libarchive): tar (any compression) and zip.
//
// Refused, with the whole extraction failing: absolute paths, any ".."
// component, entries written through a symlink, symlinks or hard links that
// point outside the extraction root, device nodes and FIFOs, and more than
// `max_bytes` of content. libarchive's own guards (SECURE_NODOTDOT,
// SECURE_SYMLINKS) run as a second layer, and a final walk checks that every
// extracted symlink resolves inside the root.
#pragma once
#include <cstdint>
#include <string>

namespace milabench::fetch {

struct ExtractOptions {
  int strip_components = 0;     // drop this many leading path components (tar --strip-components)
  std::uint64_t max_bytes = 0;  // refuse archives whose content exceeds this; 0 = no limit
};

struct ExtractResult {
  bool ok = false;
  std::string error;          // one line when !ok: archive, entry, what to do
  std::uint64_t entries = 0;  // entries written
  std::uint64_t bytes = 0;    // content bytes written
};

// Extracts into the existing directory `dir`. On failure, entries written so
// far stay in `dir`: call it on a scratch directory (extract_archive does).
ExtractResult extract_into(const std::string& archive, const std::string& dir, const ExtractOptions& options = {});

// Extracts into `target`, which must not exist yet: everything goes into a
// temporary sibling directory (".<name>.extract-XXXXXX") that is renamed to
// `target` only after every entry succeeded; on failure it is removed, so
// `target` is never half made.
ExtractResult extract_archive(const std::string& archive, const std::string& target,
                              const ExtractOptions& options = {});

// Decompresses a single gzip file (not a tar) to `dest` through `dest`.tmp,
// renamed on success.
ExtractResult gunzip_file(const std::string& src, const std::string& dest, std::uint64_t max_bytes = 0);

// Why `path` (an entry name) may not be extracted, or "" when it may:
// empty, absolute, or holding a ".." component.
std::string unsafe_entry_path(const std::string& path);

// Why a symlink stored at entry path `link` with target `target` escapes the
// extraction root (lexically), or "" when it stays inside.
std::string unsafe_link_target(const std::string& link, const std::string& target);

}  // namespace milabench::fetch
