// An image dataset as a list of (file, label), read from torchvision's
// ImageFolder layout ROOT/<class>/<file>: classes are the sub-folder names
// sorted as strings (as ImageFolder sorts them), label = index in that order,
// files sorted by name within a class. Only .jpg/.jpeg files (any case) count.
// No torch here; other datasets (bsds500, coco) can build the same list.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace milabench {

struct ImageSample {
  std::string path;
  int64_t label = 0;
};

struct ImageFolder {
  std::string root;
  std::vector<std::string> classes;  // label -> folder name
  std::vector<ImageSample> samples;
};

// True for a file name ending in .jpg or .jpeg (any case).
bool is_jpeg_filename(const std::string& name);

// Throws std::runtime_error with one line naming `root` and `make_command`
// (the command that creates the data) when the folder is missing or holds no
// JPEG in any class folder.
ImageFolder scan_image_folder(const std::string& root, const std::string& make_command);

}  // namespace milabench
