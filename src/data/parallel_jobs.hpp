// Helpers of the synthetic-dataset generators: build a dataset folder off to
// the side, run N independent jobs on a pool of threads, write one file. No
// torch here.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>

namespace milabench {

// A dataset folder made off to the side: `<final_dir>.partial-<pid>` (fresh,
// with the given sub-folders) is filled by the generator, then publish()
// puts it in place of final_dir (an old one is replaced). Destroyed without
// publish() (the generator threw), it removes the partial folder, so a
// failed generation leaves no half-made dataset. Errors throw
// std::runtime_error "<what>: cannot ..." naming the path.
class StagedFolder {
 public:
  StagedFolder(std::filesystem::path final_dir, std::string what,
               std::initializer_list<std::filesystem::path> subdirs = {});
  ~StagedFolder();
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;
  const std::filesystem::path& path() const { return tmp_; }
  // Creates path()/sub (and its parents).
  void make_dir(const std::filesystem::path& sub) const;
  void publish();

 private:
  std::filesystem::path final_, tmp_;
  std::string what_;
  bool published_ = false;
};

// Calls job(i) for every i in [0, count) on `threads` threads (0 = all CPUs
// this process may use, see usable_cpu_count()), each index exactly once, in no
// particular order. After the first exception no new job starts; once all
// threads have stopped, that first exception is rethrown.
void run_parallel_jobs(int64_t count, unsigned threads, const std::function<void(int64_t)>& job);

// Writes `bytes` to `path` (truncating). Throws std::runtime_error
// "<what>: cannot write <path>" on failure.
void write_file_or_throw(const std::string& path, const std::string& bytes, const std::string& what);

}  // namespace milabench
