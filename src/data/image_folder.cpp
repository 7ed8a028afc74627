#include "data/image_folder.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "data/data_error.hpp"

namespace fs = std::filesystem;

namespace milabench {
bool is_jpeg_filename(const std::string& name) {
  std::string ext = fs::path(name).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg";
}

ImageFolder scan_image_folder(const std::string& root, const std::string& make_command) {
  ImageFolder folder;
  folder.root = root;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw DataError("image folder " + root + " is missing; run: " + make_command);
  std::vector<std::string> classes;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) classes.push_back(it->path().filename().string());
  if (ec) throw std::runtime_error("image folder " + root + ": " + ec.message());
  std::sort(classes.begin(), classes.end());
  for (size_t label = 0; label < classes.size(); ++label) {
    std::vector<std::string> files;
    for (fs::directory_iterator it(fs::path(root) / classes[label], ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec) && is_jpeg_filename(it->path().string())) files.push_back(it->path().string());
    if (ec) throw std::runtime_error("image folder " + root + "/" + classes[label] + ": " + ec.message());
    std::sort(files.begin(), files.end());
    for (auto& f : files) folder.samples.push_back({std::move(f), static_cast<int64_t>(label)});
  }
  folder.classes = std::move(classes);
  if (folder.samples.empty())
    throw DataError("image folder " + root + " holds no .jpeg/.jpg in any class folder; run: " + make_command);
  return folder;
}

}  // namespace milabench
