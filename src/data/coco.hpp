// COCO 2017 detection data in the layout of the real download:
//   DATAROOT/coco/{train2017,val2017}/<file_name>.jpg
//   DATAROOT/coco/annotations/instances_{train,val}2017.json
// The JSON is the COCO format: "images" [{id, file_name, width, height}],
// "annotations" [{id, image_id, bbox [x, y, w, h] in pixels, category_id,
// area, iscrowd, segmentation}], "categories" [{id, name, supercategory}]
// (80 categories, ids 1..90 with gaps). No torch here.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.hpp"

namespace milabench {

struct CocoBox {
  std::array<float, 4> xywh{};  // pixels, top-left corner + size, as in the JSON
  int category_id = 0;          // COCO id (1..90)
  int label = 0;                // contiguous label 1..N (0 = background), see CocoSet
  bool iscrowd = false;
  double area = 0;
};

struct CocoImage {
  int64_t id = 0;
  std::string path;  // absolute path of the JPEG (split folder + file_name)
  int width = 0, height = 0;
  std::vector<CocoBox> boxes;
};

struct CocoCategory {
  int id = 0;
  std::string name;
};

struct CocoSet {
  std::string annotation_file;
  // In the order of the JSON's "categories"; label of category k is k + 1, as
  // the original's COCODetection numbers them (0 is the background).
  std::vector<CocoCategory> categories;
  std::vector<CocoImage> images;                                     // in the JSON's order
  int64_t annotations = 0;                                           // boxes read in all
  int64_t labels() const { return int64_t(categories.size()) + 1; }  // with the background
};

std::string coco_dir(const std::string& dataroot);  // DATAROOT/coco
// DATAROOT/coco/annotations/instances_<split>2017.json; split is "train" or "val".
std::string coco_annotation_file(const std::string& dataroot, const std::string& split);
std::string coco_image_dir(const std::string& dataroot, const std::string& split);  // .../<split>2017

// Reads one split's annotations ("segmentation" is skipped while parsing, so
// the real 450 MB train file stays small in memory). Images without any box
// are kept here (the workload drops them, as the original did). Throws
// std::runtime_error with one line naming the file, what is wrong and the
// command that makes the data, when the file is missing, is not JSON, lacks a
// field, refers to an unknown image or category, or has a duplicate image id.
CocoSet read_coco(const std::string& dataroot, const std::string& split);

// Same, for one annotation file and its image folder (no command in errors
// beyond `make_command`).
CocoSet read_coco_file(const std::string& annotation_file, const std::string& image_dir,
                       const std::string& make_command);

// The 80 COCO categories (id, name) in the real file's order.
const std::vector<CocoCategory>& coco_categories();

struct CocoCounts {
  int64_t train = 0, val = 0;
};
// 118 287 train / 5 000 val images (COCO 2017) times `scale`, at least 1 each.
CocoCounts coco_counts(double scale);

// Writes a synthetic COCO in the real layout with `options.threads` threads:
// random-content JPEGs with COCO's spread of sizes (mostly 640 on the long
// side: 640x480, 640x427, 480x640, 500x375, ...) and of boxes per image (mean
// about 7, heavy tail up to 93, 41% small boxes, ~1% images without boxes),
// each box drawn as a patch of its category's colour. Writes under
// DATAROOT/.coco.partial-XXXXXX and renames it when complete; records the
// MANIFEST entry "coco" as synthetic. Does nothing when present and
// !options.force. Throws std::runtime_error naming the path on I/O failure.
void generate_coco(const std::string& dataroot, const DatasetOptions& options);

// True when the train annotation file exists and train2017 holds a file.
bool coco_present(const std::string& dataroot);

}  // namespace milabench
