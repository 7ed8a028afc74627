#include "fetch/extract.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <vector>

#include "sys/atomic_file.hpp"
#include "sys/staged_folder.hpp"

namespace milabench::fetch {
namespace fs = std::filesystem;

namespace {

// Path components without empty and "." ones ("./a//b" -> {a, b}).
std::vector<std::string> components(const std::string& p) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= p.size()) {
    std::size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    std::string c = p.substr(i, j - i);
    if (!c.empty() && c != ".") out.push_back(c);
    i = j + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& c, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < c.size(); ++i) out += (out.empty() ? "" : "/") + c[i];
  return out;
}

bool is_symlink_at(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

// RAII owners of libarchive handles.
struct Reader {
  struct archive* a = archive_read_new();
  ~Reader() { archive_read_free(a); }
};
struct Writer {
  struct archive* a = archive_write_disk_new();
  ~Writer() { archive_write_free(a); }
};

std::string err_of(struct archive* a) {
  const char* s = archive_error_string(a);
  return s ? s : "unknown libarchive error";
}

ExtractResult refuse(ExtractResult r, const std::string& archive, const std::string& entry, const std::string& why) {
  r.ok = false;
  r.error = entry.empty() ? fmt::format("extract {}: {}", archive, why)
                          : fmt::format(
                                "extract {}: entry \"{}\" refused: {}; the archive is unsafe or corrupt "
                                "(delete it and download again)",
                                archive, entry, why);
  return r;
}

// Every symlink under `root` must resolve (lexically and through other links) inside it.
std::string escaping_symlink(const fs::path& root) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_symlink(ec)) continue;
    fs::path resolved = fs::weakly_canonical(it->path().parent_path() / fs::read_symlink(it->path(), ec), ec);
    auto rel = resolved.lexically_relative(root);
    if (ec || rel.empty() || *rel.begin() == "..") return fs::relative(it->path(), root).string();
  }
  return ec ? "(cannot walk the extracted tree: " + ec.message() + ")" : "";
}

}  // namespace

std::string unsafe_entry_path(const std::string& path) {
  if (path.empty()) return "empty path";
  if (path[0] == '/') return "absolute path";
  for (const auto& c : components(path))
    if (c == "..") return "\"..\" path component";
  return "";
}

std::string unsafe_link_target(const std::string& link, const std::string& target) {
  if (target.empty()) return "empty link target";
  if (target[0] == '/') return "link to an absolute path";
  auto parts = components(link);
  if (!parts.empty()) parts.pop_back();  // the link's own name
  for (const auto& c : components(target)) {
    if (c != "..") {
      parts.push_back(c);
    } else if (parts.empty()) {
      return "link points outside the extraction directory";
    } else {
      parts.pop_back();
    }
  }
  return "";
}

namespace {

// Why entry `e` (path components `comps`, `rel` under `root` once
// stripped) must not be written: its path goes through a symlink, it is a
// hard link out of the tree, to a stripped directory or to a symlink, a
// symlink pointing out, or a device, FIFO or socket; "" when it is safe. A
// safe hard link is pointed at its place under `root`.
std::string entry_problem(struct archive_entry* e, const fs::path& root, const std::vector<std::string>& comps,
                          const std::string& rel, const ExtractOptions& opt) {
  std::string parent;
  for (std::size_t i = opt.strip_components; i + 1 < comps.size(); ++i) {
    parent += (parent.empty() ? "" : "/") + comps[i];
    if (is_symlink_at(root / parent)) return "it goes through the symlink " + parent;
  }
  if (const char* hl = archive_entry_hardlink(e)) {
    if (auto why = unsafe_entry_path(hl); !why.empty()) return "hard link target: " + why;
    auto hc = components(hl);
    if (static_cast<int>(hc.size()) <= opt.strip_components) return "hard link to a stripped directory";
    fs::path dest = root / join(hc, opt.strip_components);
    if (is_symlink_at(dest)) return "hard link to a symlink";
    archive_entry_set_hardlink(e, dest.c_str());
    return "";
  }
  switch (archive_entry_filetype(e)) {
    case AE_IFREG:
    case AE_IFDIR:
      return "";
    case AE_IFLNK: {
      const char* t = archive_entry_symlink(e);
      return unsafe_link_target(rel, t ? t : "");
    }
    default:
      return "device, FIFO or socket entries are not allowed";
  }
}

// Copies the current entry's data from `in` to `out`, adding its size to
// `bytes` (the archive's running total, bounded by opt.max_bytes); "" or why
// it stopped.
std::string copy_data(Reader& in, Writer& out, std::uint64_t& bytes, const ExtractOptions& opt) {
  const void* buf = nullptr;
  size_t size = 0;
  la_int64_t offset = 0;
  int rc;
  while ((rc = archive_read_data_block(in.a, &buf, &size, &offset)) == ARCHIVE_OK) {
    bytes += size;
    if (opt.max_bytes && bytes > opt.max_bytes)
      return fmt::format("content exceeds the limit of {} bytes", opt.max_bytes);
    if (archive_write_data_block(out.a, buf, size, offset) < ARCHIVE_WARN) return "write failed: " + err_of(out.a);
  }
  if (rc < ARCHIVE_WARN) return "corrupt data: " + err_of(in.a);
  return "";
}

}  // namespace

ExtractResult extract_into(const std::string& archive, const std::string& dir, const ExtractOptions& opt) {
  ExtractResult r;
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);  // no symlink left in the prefix for SECURE_SYMLINKS
  if (ec) return refuse(r, archive, "", fmt::format("extraction directory {}: {}", dir, ec.message()));

  Reader in;
  Writer out;
  archive_read_support_filter_all(in.a);
  archive_read_support_format_tar(in.a);
  archive_read_support_format_gnutar(in.a);
  archive_read_support_format_zip(in.a);
  archive_write_disk_set_options(
      out.a, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS);
  // Entry names are made absolute below (root + checked relative path), so
  // ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS cannot be set; unsafe_entry_path
  // refuses absolute names before that happens.
  if (archive_read_open_filename(in.a, archive.c_str(), 1 << 16) != ARCHIVE_OK)
    return refuse(r, archive, "", err_of(in.a) + "; delete it and download again");

  for (;;) {
    struct archive_entry* e = nullptr;
    int rc = archive_read_next_header(in.a, &e);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN)
      return refuse(r, archive, "", "corrupt archive: " + err_of(in.a) + "; delete it and download again");
    const char* raw = archive_entry_pathname(e);
    if (!raw) raw = archive_entry_pathname_utf8(e);
    const std::string name = raw ? raw : "";
    if (auto why = unsafe_entry_path(name); !why.empty()) return refuse(r, archive, name, why);
    auto comps = components(name);
    if (static_cast<int>(comps.size()) <= opt.strip_components) continue;  // a stripped leading directory
    const std::string rel = join(comps, opt.strip_components);

    if (auto why = entry_problem(e, root, comps, rel, opt); !why.empty()) return refuse(r, archive, name, why);
    mode_t perm = archive_entry_perm(e);
    archive_entry_set_perm(e, archive_entry_filetype(e) == AE_IFDIR || (perm & 0111) ? 0755 : 0644);
    archive_entry_set_pathname(e, (root / rel).c_str());

    if (archive_write_header(out.a, e) < ARCHIVE_WARN) return refuse(r, archive, name, err_of(out.a));
    if (auto why = copy_data(in, out, r.bytes, opt); !why.empty()) return refuse(r, archive, name, why);
    if (archive_write_finish_entry(out.a) < ARCHIVE_WARN) return refuse(r, archive, name, err_of(out.a));
    ++r.entries;
  }
  if (archive_write_close(out.a) < ARCHIVE_WARN) return refuse(r, archive, "", err_of(out.a));
  if (auto bad = escaping_symlink(root); !bad.empty())
    return refuse(r, archive, bad, "symlink resolves outside the extraction directory");
  r.ok = true;
  return r;
}

ExtractResult extract_archive(const std::string& archive, const std::string& target, const ExtractOptions& opt) {
  ExtractResult r;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(target, ec)))
    return refuse(r, archive, "", fmt::format("{} already exists; remove it to extract again", target));
  std::optional<StagedFolder> staged;  // removed unless published
  try {
    staged.emplace(target, "extract", "extract");
  } catch (const std::exception& e) {
    return refuse(r, archive, "", e.what());
  }
  r = extract_into(archive, staged->path().string(), opt);
  if (r.ok) {
    try {
      staged->publish(/*replace=*/false);
    } catch (const std::exception& e) {
      r = refuse(r, archive, "", e.what());
    }
  }
  return r;
}

ExtractResult gunzip_file(const std::string& src, const std::string& dest, std::uint64_t max_bytes) {
  ExtractResult r;
  Reader in;
  archive_read_support_filter_gzip(in.a);
  archive_read_support_format_raw(in.a);
  struct archive_entry* e = nullptr;
  if (archive_read_open_filename(in.a, src.c_str(), 1 << 16) != ARCHIVE_OK ||
      archive_read_next_header(in.a, &e) != ARCHIVE_OK)
    return refuse(r, src, "", err_of(in.a) + "; delete it and download again");
  if (archive_filter_code(in.a, 0) != ARCHIVE_FILTER_GZIP)
    return refuse(r, src, "", "not a gzip file; delete it and download again");
  // Written whole or not at all, flushed to disk (sys/atomic_file.hpp).
  std::optional<AtomicFile> out;
  try {
    out.emplace(dest);
  } catch (const std::exception& e) {
    return refuse(r, src, "", e.what());
  }
  char buf[1 << 16];
  la_ssize_t n;
  try {
    while ((n = archive_read_data(in.a, buf, sizeof buf)) > 0) {
      r.bytes += static_cast<std::uint64_t>(n);
      if (max_bytes && r.bytes > max_bytes)
        return refuse(r, src, "", fmt::format("decompressed content exceeds the limit of {} bytes", max_bytes));
      out->write(buf, static_cast<std::size_t>(n));
    }
    if (n < 0) return refuse(r, src, "", "corrupt gzip data: " + err_of(in.a) + "; delete it and download again");
    out->commit();
  } catch (const std::exception& e) {
    return refuse(r, src, "", std::string(e.what()) + "; free some disk space");
  }
  r.entries = 1;
  r.ok = true;
  return r;
}

}  // namespace milabench::fetch
