// Staged folders: a folder filled off to the side and put in place whole, or
// not at all. The one implementation in src/ (the synthetic-data generators,
// the download's unpacking, archive extraction), as sys/atomic_file.hpp is
// for files. Includes nothing of ours.
#pragma once
#include <filesystem>
#include <initializer_list>
#include <string>

namespace milabench {

// The staging folder is `<parent>/.<name>.<tag>-XXXXXX` beside `final_dir`
// (mkdtemp: unique across processes and containers, on the same filesystem,
// so publish() is a rename), created with `subdirs`. publish() renames it onto
// final_dir, removing an old final_dir first when `replace` (a regenerated
// dataset). Destroyed without publish() (its filler threw or returned early),
// it removes the staging folder: a failure leaves the parent as it was.
// Errors throw std::runtime_error "<what>: cannot create|rename <path>: <why>",
// naming the path; creating adds " (is the folder writable?)".
class StagedFolder {
 public:
  StagedFolder(std::filesystem::path final_dir, std::string what, std::string tag,
               std::initializer_list<std::filesystem::path> subdirs = {});
  ~StagedFolder();
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;

  const std::filesystem::path& path() const { return tmp_; }
  // Creates path()/sub (and its parents).
  void make_dir(const std::filesystem::path& sub) const;
  void publish(bool replace);

 private:
  std::filesystem::path final_, tmp_;
  std::string what_;
  bool published_ = false;
};

}  // namespace milabench
