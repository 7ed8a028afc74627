// ratings.csv and the binary cache as files (parsing: movielens_csv.cpp),
// and the cache policy. The generator is in movielens_gen.cpp.
#include "data/movielens.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "data/data_error.hpp"
#include "data/manifest.hpp"
#include "results/atomic_write.hpp"

namespace milabench {
namespace {

// Read-only view of a whole file (mmap); throws naming the file.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    ::fstat(fd, &st);
    size_ = size_t(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        throw std::runtime_error(path + ": cannot map: " + std::strerror(errno));
      }
      data_ = static_cast<const char*>(p);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view view() const { return {data_ ? data_ : "", size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

std::string ml20m_dir(const std::string& dataroot) { return dataroot + "/ml-20m"; }
std::string ml20m_csv(const std::string& dataroot) { return ml20m_dir(dataroot) + "/ratings.csv"; }
std::string ml20m_cache(const std::string& dataroot) { return ml20m_dir(dataroot) + "/ratings.bin"; }

Ml20m convert_ml20m_csv(const std::string& csv_path, unsigned threads) {
  MappedFile file(csv_path);
  return convert_ratings_csv(file.view(), csv_path, threads);
}

void write_ml20m_cache(const std::string& path, const Ml20m& d) { write_text_atomic(path, encode_ml20m_cache(d)); }

Ml20m read_ml20m_cache(const std::string& path) {
  MappedFile file(path);
  return parse_ml20m_cache(file.view(), "ml-20m cache " + path);
}

Ml20m load_ml20m(const std::string& dataroot, unsigned threads) {
  namespace fs = std::filesystem;
  const std::string csv = ml20m_csv(dataroot), cache = ml20m_cache(dataroot);
  std::error_code ec;
  const bool has_csv = fs::exists(csv, ec), has_cache = fs::exists(cache, ec);
  if (!has_csv && !has_cache)
    throw DataError("MovieLens ratings " + csv + " missing; run: " + dataset_command("ml20m", dataroot));
  if (has_cache && (!has_csv || fs::last_write_time(cache, ec) >= fs::last_write_time(csv, ec))) {
    try {
      return read_ml20m_cache(cache);
    } catch (const std::exception& e) {
      if (!has_csv) throw;
      std::cerr << "warning: " << e.what() << "; rebuilding it from " << csv << "\n";
    }
  }
  Ml20m d = convert_ml20m_csv(csv, threads);
  try {
    write_ml20m_cache(cache, d);
  } catch (const std::exception& e) {  // e.g. a read-only data root: train anyway
    std::cerr << "warning: cannot write the ratings cache: " << e.what() << "\n";
  }
  return d;
}

bool ml20m_present(const std::string& dataroot) {
  struct stat st {};
  return ::stat(ml20m_csv(dataroot).c_str(), &st) == 0;
}

nlohmann::json ml20m_provenance(const std::string& dataroot) { return dataset_provenance(dataroot, "ml20m"); }

}  // namespace milabench
