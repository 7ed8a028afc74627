#include "sys/staged_folder.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace milabench {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& verb, const std::string& path,
                       const std::string& why, const char* hint = "") {
  throw std::runtime_error(what + ": cannot " + verb + " " + path + ": " + why + hint);
}

constexpr const char* kWritable = " (is the folder writable?)";

}  // namespace

StagedFolder::StagedFolder(fs::path final_dir, std::string what, std::string tag,
                           std::initializer_list<fs::path> subdirs)
    : final_(fs::path(std::move(final_dir)).lexically_normal()), what_(std::move(what)) {
  if (final_.filename().empty()) final_ = final_.parent_path();
  const fs::path parent = final_.parent_path().empty() ? fs::path(".") : final_.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) fail(what_, "create", parent.string(), ec.message(), kWritable);
  std::string tmpl = (parent / ("." + final_.filename().string() + "." + tag + "-XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) fail(what_, "create", tmpl, std::strerror(errno), kWritable);
  tmp_ = buf.data();
  for (const auto& sub : subdirs) make_dir(sub);
}

StagedFolder::~StagedFolder() {
  std::error_code ec;
  if (!published_ && !tmp_.empty()) fs::remove_all(tmp_, ec);
}

void StagedFolder::make_dir(const fs::path& sub) const {
  std::error_code ec;
  const fs::path dir = sub.empty() ? tmp_ : tmp_ / sub;
  fs::create_directories(dir, ec);
  if (ec) fail(what_, "create", dir.string(), ec.message(), kWritable);
}

void StagedFolder::publish(bool replace) {
  std::error_code ec;
  if (replace) fs::remove_all(final_, ec);
  fs::rename(tmp_, final_, ec);
  if (ec) fail(what_, "rename", tmp_.string() + " to " + final_.string(), ec.message());
  published_ = true;
}

}  // namespace milabench
