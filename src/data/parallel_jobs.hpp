// Helpers of the synthetic-dataset generators: run N independent jobs on a
// pool of threads, write one file (their dataset folder is a StagedFolder,
// sys/staged_folder.hpp). No torch here.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace milabench {

// Calls job(i) for every i in [0, count) on `threads` threads (0 = all CPUs
// this process may use, see usable_cpu_count()), each index exactly once, in no
// particular order. After the first exception no new job starts; once all
// threads have stopped, that first exception is rethrown.
void run_parallel_jobs(int64_t count, unsigned threads, const std::function<void(int64_t)>& job);

// Writes `bytes` to `path` (truncating). Throws std::runtime_error
// "<what>: cannot write <path>" on failure.
void write_file_or_throw(const std::string& path, const std::string& bytes, const std::string& what);

}  // namespace milabench
