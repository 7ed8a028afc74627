#include "data/parallel_jobs.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sys/cpus.hpp"

namespace milabench {

void run_parallel_jobs(int64_t count, unsigned threads, const std::function<void(int64_t)>& job) {
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto worker = [&] {
    try {
      for (int64_t i = next++; i < count && !failed; i = next++) job(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
      failed = true;
    }
  };
  const unsigned n = std::max(1u, threads ? threads : static_cast<unsigned>(usable_cpu_count()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

void write_file_or_throw(const std::string& path, const std::string& bytes, const std::string& what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error(what + ": cannot write " + path);
}

}  // namespace milabench
