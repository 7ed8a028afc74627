// Resumable, verified HTTP(S) download of one file (libcurl).
//
// Contract: the destination path only ever holds a complete file whose size
// and SHA-256 were checked (or, when no hash is known, recorded and reported
// as unverified). Bytes in flight live in `<dest>.part`; a failed or
// interrupted transfer keeps that file so the next call resumes it with an
// HTTP Range request. A checksum mismatch deletes the .part (the bytes are
// wrong, resuming them would be wrong too).
#pragma once
#include <cstdint>
#include <string>

#include "sys/disk_space.hpp"

namespace milabench::fetch {

struct RemoteFile {
  std::string url;
  std::string sha256;      // 64 lowercase hex digits; empty = not known
  std::uint64_t size = 0;  // exact size in bytes; 0 = not known
};

struct DownloadOptions {
  DiskSpace* disk = nullptr;                  // null: statvfs (system_disk_space())
  std::uint64_t reserve_bytes = 64ull << 20;  // free space left untouched on top of the file
  long connect_timeout_s = 30;                // TCP + TLS handshake limit per attempt
  long stall_timeout_s = 60;                  // abort an attempt after this long below 1 byte/s
  long max_time_s = 0;                        // whole-attempt limit; 0 = none
  int attempts = 3;                           // transfer attempts per call, each resuming the .part
  double retry_wait_s = 2.0;                  // pause between attempts
};

struct DownloadResult {
  bool ok = false;
  std::string error;               // one line when !ok: URL, what failed, what to do
  std::string sha256;              // computed hash of the final file (when ok)
  bool verified = false;           // sha256 matched RemoteFile::sha256
  bool already_present = false;    // dest existed and was accepted without a transfer
  std::uint64_t bytes = 0;         // final size
  std::uint64_t resumed_from = 0;  // bytes kept from an earlier .part in the last attempt
  int requests = 0;                // HTTP transfers started by this call
};

// Fetches `file` to `dest_path` (its directory must exist). Order: accept an
// existing dest (hash checked when known) -> check free space (needs `size`
// or, when unknown, the server's Content-Length) -> transfer into the .part,
// resuming -> check size and SHA-256 -> rename into place. Never throws.
DownloadResult download_file(const RemoteFile& file, const std::string& dest_path, const DownloadOptions& options = {});

}  // namespace milabench::fetch
