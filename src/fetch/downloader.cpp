#include "fetch/downloader.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "fetch/sha256.hpp"

namespace milabench::fetch {
namespace fs = std::filesystem;

namespace {

void curl_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::uint64_t size_or_zero(const std::string& path) {
  std::error_code ec;
  auto n = fs::file_size(path, ec);
  return ec ? 0 : n;
}

// State shared with libcurl's write callback for one attempt.
struct Attempt {
  const RemoteFile* file = nullptr;
  DiskSpace* disk = nullptr;
  std::string dir;
  std::uint64_t reserve = 0;
  std::FILE* out = nullptr;
  CURL* curl = nullptr;
  std::uint64_t offset = 0;   // bytes already in the .part when the attempt began
  bool headers_checked = false;
  std::string fatal;          // set when the callback aborts for a reason retrying cannot fix
};

// Runs once, when the first body bytes arrive (the status and headers are known).
bool check_headers(Attempt& a) {
  curl_off_t remaining = -1;
  curl_easy_getinfo(a.curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &remaining);
  if (remaining < 0) return true;
  std::uint64_t total = a.offset + static_cast<std::uint64_t>(remaining);
  if (a.file->size && total != a.file->size) {
    a.fatal = fmt::format("the server sends {} bytes but {} are expected (the file changed upstream?); "
                          "check the URL and update the dataset table",
                          total, a.file->size);
    return false;
  }
  if (!a.file->size) {
    std::uint64_t avail = 0;
    try {
      avail = a.disk->available_bytes(a.dir);
    } catch (const std::exception& e) {
      a.fatal = e.what();
      return false;
    }
    if (avail < static_cast<std::uint64_t>(remaining) + a.reserve) {
      a.fatal = fmt::format("not enough disk space in {}: the server announces {}, {} free (keeping {} spare); "
                            "free some space or choose another data root (-d)",
                            a.dir, human_bytes(remaining), human_bytes(avail), human_bytes(a.reserve));
      return false;
    }
  }
  return true;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto& a = *static_cast<Attempt*>(user);
  size_t n = size * count;
  if (!a.headers_checked) {
    a.headers_checked = true;
    if (!check_headers(a)) return 0;  // != n: libcurl aborts with CURLE_WRITE_ERROR
  }
  if (std::fwrite(data, 1, n, a.out) != n) {
    a.fatal = fmt::format("writing to {} failed: {}; free some disk space and run again to resume", a.dir,
                          std::strerror(errno));
    return 0;
  }
  return n;
}

enum class Outcome { Done, Retry, RestartFromZero, Fatal };

struct AttemptReport {
  Outcome outcome;
  std::string what;  // reason, for the final message
};

AttemptReport run_attempt(const RemoteFile& file, const std::string& part, const DownloadOptions& o,
                          DiskSpace& disk, std::uint64_t offset) {
  Attempt a;
  a.file = &file;
  a.disk = &disk;
  a.dir = fs::path(part).parent_path().string();
  a.reserve = o.reserve_bytes;
  a.offset = offset;
  a.out = std::fopen(part.c_str(), "ab");
  if (!a.out) return {Outcome::Fatal, fmt::format("cannot write {}: {}", part, std::strerror(errno))};
  a.curl = curl_easy_init();
  if (!a.curl) {
    std::fclose(a.out);
    return {Outcome::Fatal, "libcurl could not start a transfer"};
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURL* c = a.curl;
  curl_easy_setopt(c, CURLOPT_URL, file.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "milabench-cpp/1");
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o.connect_timeout_s);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, o.stall_timeout_s);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, o.max_time_s);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &a);
  if (offset > 0) curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(offset));

  CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  bool close_failed = std::fclose(a.out) != 0;

  if (!a.fatal.empty()) return {Outcome::Fatal, a.fatal};
  if (rc == CURLE_OK) {
    if (close_failed) return {Outcome::Fatal, fmt::format("writing {} failed; free some disk space", part)};
    return {Outcome::Done, ""};
  }
  std::string detail = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  if (rc == CURLE_RANGE_ERROR || status == 416)
    return {Outcome::RestartFromZero, "the server cannot resume this file (" + detail + ")"};
  if (rc == CURLE_HTTP_RETURNED_ERROR && status >= 400 && status < 500 && status != 408 && status != 429)
    return {Outcome::Fatal, fmt::format("the server answered HTTP {}; check the URL (the file may have moved)", status)};
  if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT)
    return {Outcome::Fatal, detail + "; only http and https URLs are accepted"};
  return {Outcome::Retry, detail};
}

bool fsync_path(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

DownloadResult fail(DownloadResult r, const RemoteFile& f, const std::string& what) {
  r.ok = false;
  r.error = fmt::format("download {}: {}", f.url, what);
  return r;
}

// Accepts an existing final file when its hash matches (or none is known).
bool accept_existing(const RemoteFile& f, const std::string& dest, DownloadResult& r) {
  std::error_code ec;
  if (!fs::is_regular_file(dest, ec)) return false;
  r.bytes = size_or_zero(dest);
  if (f.size && r.bytes != f.size) {
    r.error = fmt::format("download {}: {} exists but has {} bytes, expected {}; delete it and run again", f.url,
                          dest, r.bytes, f.size);
    return true;
  }
  r.sha256 = sha256_file(dest);
  if (!f.sha256.empty() && r.sha256 != f.sha256) {
    r.error = fmt::format("download {}: {} exists but its SHA-256 is {}, expected {}; delete it and run again",
                          f.url, dest, r.sha256, f.sha256);
    return true;
  }
  r.ok = true;
  r.already_present = true;
  r.verified = !f.sha256.empty();
  return true;
}

}  // namespace

DownloadResult download_file(const RemoteFile& file, const std::string& dest, const DownloadOptions& o) {
  DownloadResult r;
  try {
    curl_init_once();
    DiskSpace& disk = o.disk ? *o.disk : system_disk_space();
    if (!file.sha256.empty() && !is_sha256_hex(file.sha256))
      return fail(r, file, fmt::format("bad SHA-256 \"{}\" in the dataset table (want 64 lowercase hex digits)", file.sha256));
    if (accept_existing(file, dest, r)) return r;

    const std::string part = dest + ".part";
    const std::string dir = fs::path(dest).parent_path().string();
    std::uint64_t offset = size_or_zero(part);
    if (file.size && offset > file.size) {
      fs::remove(part);
      offset = 0;
    }
    if (file.size) {
      std::uint64_t avail = disk.available_bytes(dir.empty() ? "." : dir);
      std::uint64_t need = file.size - offset + o.reserve_bytes;
      if (avail < need)
        return fail(r, file, fmt::format("not enough disk space in {}: need {} (keeping {} spare), {} free; "
                                         "free some space or choose another data root (-d)",
                                         dir, human_bytes(need), human_bytes(o.reserve_bytes), human_bytes(avail)));
    }

    bool restarted = false;
    std::string last;
    bool done = file.size && offset == file.size;  // a complete .part from an earlier call
    for (int i = 0; !done && i < std::max(1, o.attempts); ++i) {
      if (i > 0 && o.retry_wait_s > 0)
        std::this_thread::sleep_for(std::chrono::duration<double>(o.retry_wait_s));
      offset = size_or_zero(part);
      r.resumed_from = offset;
      ++r.requests;
      AttemptReport a = run_attempt(file, part, o, disk, offset);
      if (a.outcome == Outcome::Done) {
        done = true;
      } else if (a.outcome == Outcome::RestartFromZero && !restarted) {
        restarted = true;  // one free retry from byte 0, outside the attempt count
        fs::remove(part);
        --i;
      } else if (a.outcome == Outcome::Fatal || a.outcome == Outcome::RestartFromZero) {
        if (size_or_zero(part) == 0) fs::remove(part);
        return fail(r, file, a.what);
      } else {
        last = a.what;
      }
    }
    if (!done) {
      std::uint64_t kept = size_or_zero(part);
      if (kept == 0) fs::remove(part);
      return fail(r, file, fmt::format("{} after {} attempt(s); {} kept in {}, run the same command again to resume",
                                       last, r.requests, human_bytes(kept), part));
    }

    std::uint64_t got = size_or_zero(part);
    if (file.size && got != file.size) {
      fs::remove(part);
      return fail(r, file, fmt::format("got {} bytes, expected {}; the partial file was deleted, run again", got, file.size));
    }
    r.sha256 = sha256_file(part);
    if (!file.sha256.empty() && r.sha256 != file.sha256) {
      fs::remove(part);
      return fail(r, file, fmt::format("SHA-256 mismatch: got {}, expected {}; the file was deleted; run again, and if it "
                                       "repeats the server sends a different file than the dataset table names",
                                       r.sha256, file.sha256));
    }
    if (!fsync_path(part)) return fail(r, file, fmt::format("cannot flush {} to disk: {}", part, std::strerror(errno)));
    fs::rename(part, dest);
    r.ok = true;
    r.verified = !file.sha256.empty();
    r.bytes = got;
    return r;
  } catch (const std::exception& e) {
    return fail(r, file, e.what());
  }
}

}  // namespace milabench::fetch
