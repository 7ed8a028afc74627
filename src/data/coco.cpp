#include "data/coco.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>

#include "data/data_error.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace milabench {
namespace {

struct BadFile : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Fetches `key` of `obj` as T, naming `where` (e.g. "annotations[3]") when it is
// missing or of the wrong type.
template <typename T>
T field(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) throw BadFile(where + " has no \"" + key + "\"");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw BadFile(where + "." + key + " has the wrong type (" + it->type_name() + ")");
  }
}

const json& array_of(const json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_array()) throw BadFile(std::string("no \"") + key + "\" array");
  return *it;
}

}  // namespace

std::string coco_dir(const std::string& dataroot) { return dataroot + "/coco"; }

std::string coco_annotation_file(const std::string& dataroot, const std::string& split) {
  return coco_dir(dataroot) + "/annotations/instances_" + split + "2017.json";
}

std::string coco_image_dir(const std::string& dataroot, const std::string& split) {
  return coco_dir(dataroot) + "/" + split + "2017";
}

CocoSet read_coco(const std::string& dataroot, const std::string& split) {
  if (split != "train" && split != "val") throw std::invalid_argument("coco split must be train or val, got " + split);
  return read_coco_file(coco_annotation_file(dataroot, split), coco_image_dir(dataroot, split),
                        dataset_command("coco", dataroot));
}

CocoSet read_coco_file(const std::string& file, const std::string& image_dir, const std::string& make_command) {
  auto fail = [&](const std::string& what) -> DataError {
    return DataError("COCO annotation file " + file + ": " + what + "; run: " + make_command);
  };
  std::ifstream in(file, std::ios::binary);
  if (!in) throw fail("missing or unreadable");
  // Drop every "segmentation" value while parsing: polygons and RLE masks are
  // most of the real file and the detector never reads them.
  json::parser_callback_t skip_masks = [](int, json::parse_event_t event, json& parsed) {
    return !(event == json::parse_event_t::key && parsed == "segmentation");
  };
  json doc;
  try {
    doc = json::parse(in, skip_masks);
  } catch (const json::parse_error& e) {
    throw fail(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!doc.is_object()) throw fail("not a JSON object");

  CocoSet set;
  set.annotation_file = file;
  try {
    std::unordered_map<int, int> label_of;  // category id -> 1..N
    const json& cats = array_of(doc, "categories");
    for (size_t k = 0; k < cats.size(); ++k) {
      const std::string where = "categories[" + std::to_string(k) + "]";
      CocoCategory c{field<int>(cats[k], "id", where), cats[k].value("name", std::string())};
      if (!label_of.emplace(c.id, int(k) + 1).second)
        throw BadFile(where + ": duplicate category id " + std::to_string(c.id));
      set.categories.push_back(std::move(c));
    }
    if (set.categories.empty()) throw BadFile("no categories");

    std::unordered_map<int64_t, size_t> index_of;  // image id -> position
    const json& images = array_of(doc, "images");
    set.images.reserve(images.size());
    for (size_t k = 0; k < images.size(); ++k) {
      const std::string where = "images[" + std::to_string(k) + "]";
      CocoImage img;
      img.id = field<int64_t>(images[k], "id", where);
      img.path = image_dir + "/" + field<std::string>(images[k], "file_name", where);
      img.width = field<int>(images[k], "width", where);
      img.height = field<int>(images[k], "height", where);
      if (img.width <= 0 || img.height <= 0) throw BadFile(where + ": width and height must be > 0");
      if (!index_of.emplace(img.id, set.images.size()).second)
        throw BadFile(where + ": duplicate image id " + std::to_string(img.id));
      set.images.push_back(std::move(img));
    }

    const json& anns = array_of(doc, "annotations");
    for (size_t k = 0; k < anns.size(); ++k) {
      const std::string where = "annotations[" + std::to_string(k) + "]";
      const int64_t image_id = field<int64_t>(anns[k], "image_id", where);
      auto img = index_of.find(image_id);
      if (img == index_of.end()) throw BadFile(where + ": image_id " + std::to_string(image_id) + " is not in images");
      CocoBox box;
      box.category_id = field<int>(anns[k], "category_id", where);
      auto label = label_of.find(box.category_id);
      if (label == label_of.end())
        throw BadFile(where + ": category_id " + std::to_string(box.category_id) + " is not in categories");
      box.label = label->second;
      const auto bbox = field<std::vector<double>>(anns[k], "bbox", where);
      if (bbox.size() != 4) throw BadFile(where + ".bbox must have 4 numbers [x, y, w, h]");
      for (int i = 0; i < 4; ++i) box.xywh[size_t(i)] = float(bbox[size_t(i)]);
      box.iscrowd = anns[k].value("iscrowd", 0) != 0;
      box.area = anns[k].value("area", bbox[2] * bbox[3]);
      set.images[img->second].boxes.push_back(box);
      ++set.annotations;
    }
  } catch (const BadFile& e) {
    throw fail(e.what());
  } catch (const json::exception& e) {
    throw fail(e.what());
  }
  return set;
}

bool coco_present(const std::string& dataroot) {
  std::error_code ec;
  if (!fs::is_regular_file(coco_annotation_file(dataroot, "train"), ec)) return false;
  fs::directory_iterator files(coco_image_dir(dataroot, "train"), ec), end;
  return !ec && files != end;
}

const std::vector<CocoCategory>& coco_categories() {
  static const std::vector<CocoCategory> table = {
      {1, "person"},         {2, "bicycle"},       {3, "car"},
      {4, "motorcycle"},     {5, "airplane"},      {6, "bus"},
      {7, "train"},          {8, "truck"},         {9, "boat"},
      {10, "traffic light"}, {11, "fire hydrant"}, {13, "stop sign"},
      {14, "parking meter"}, {15, "bench"},        {16, "bird"},
      {17, "cat"},           {18, "dog"},          {19, "horse"},
      {20, "sheep"},         {21, "cow"},          {22, "elephant"},
      {23, "bear"},          {24, "zebra"},        {25, "giraffe"},
      {27, "backpack"},      {28, "umbrella"},     {31, "handbag"},
      {32, "tie"},           {33, "suitcase"},     {34, "frisbee"},
      {35, "skis"},          {36, "snowboard"},    {37, "sports ball"},
      {38, "kite"},          {39, "baseball bat"}, {40, "baseball glove"},
      {41, "skateboard"},    {42, "surfboard"},    {43, "tennis racket"},
      {44, "bottle"},        {46, "wine glass"},   {47, "cup"},
      {48, "fork"},          {49, "knife"},        {50, "spoon"},
      {51, "bowl"},          {52, "banana"},       {53, "apple"},
      {54, "sandwich"},      {55, "orange"},       {56, "broccoli"},
      {57, "carrot"},        {58, "hot dog"},      {59, "pizza"},
      {60, "donut"},         {61, "cake"},         {62, "chair"},
      {63, "couch"},         {64, "potted plant"}, {65, "bed"},
      {67, "dining table"},  {70, "toilet"},       {72, "tv"},
      {73, "laptop"},        {74, "mouse"},        {75, "remote"},
      {76, "keyboard"},      {77, "cell phone"},   {78, "microwave"},
      {79, "oven"},          {80, "toaster"},      {81, "sink"},
      {82, "refrigerator"},  {84, "book"},         {85, "clock"},
      {86, "vase"},          {87, "scissors"},     {88, "teddy bear"},
      {89, "hair drier"},    {90, "toothbrush"},
  };
  return table;
}

CocoCounts coco_counts(double scale) {
  auto n = [scale](double full) { return std::max<int64_t>(1, std::llround(full * scale)); };
  return {n(118287), n(5000)};
}

}  // namespace milabench
