#include "data/parallel_jobs.hpp"

#include <unistd.h>

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

namespace fs = std::filesystem;

StagedFolder::StagedFolder(fs::path final_dir, std::string what, std::initializer_list<fs::path> subdirs)
    : final_(std::move(final_dir)), what_(std::move(what)) {
  tmp_ = final_.string() + ".partial-" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(tmp_, ec);
  make_dir("");
  for (const auto& sub : subdirs) make_dir(sub);
}

StagedFolder::~StagedFolder() {
  std::error_code ec;
  if (!published_) fs::remove_all(tmp_, ec);
}

void StagedFolder::make_dir(const fs::path& sub) const {
  std::error_code ec;
  const fs::path dir = sub.empty() ? tmp_ : tmp_ / sub;
  fs::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error(what_ + ": cannot create " + dir.string() + ": " + ec.message() +
                             " (is DATAROOT writable?)");
}

void StagedFolder::publish() {
  std::error_code ec;
  fs::remove_all(final_, ec);
  fs::rename(tmp_, final_, ec);
  if (ec)
    throw std::runtime_error(what_ + ": cannot rename " + tmp_.string() + " to " + final_.string() + ": " +
                             ec.message());
  published_ = true;
}

}  // namespace milabench
