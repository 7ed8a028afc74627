// COCO dataset: the generator's layout and distributions, the reader's round
// trip of the real JSON format, and its one-line errors for bad files.
#include "data/coco.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "data/dataset.hpp"
#include "data/jpeg.hpp"
#include "data/manifest.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace milabench;
using namespace milabench::test;
using nlohmann::json;

namespace {

// 118 train and 5 val images (scale 0.001), generated once for this file.
const std::string& generated_coco() {
  static TempDir dir("coco");
  static bool made = [] {
    DatasetOptions o;
    o.scale = 0.001;
    o.threads = 2;
    generate_coco(dir.str(), o);
    return true;
  }();
  (void)made;
  return dir.path.native();
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

json small_doc() {
  return {{"images",
           {{{"id", 7}, {"file_name", "a.jpg"}, {"width", 640}, {"height", 480}},
            {{"id", 9}, {"file_name", "b.jpg"}, {"width", 480}, {"height", 640}}}},
          {"annotations",
           {{{"id", 1},
             {"image_id", 9},
             {"bbox", {10.5, 20, 30, 40}},
             {"category_id", 90},
             {"area", 900.0},
             {"iscrowd", 1},
             {"segmentation", {{1, 2, 3, 4}}}},
            {{"id", 2}, {"image_id", 9}, {"bbox", {0, 0, 5, 5}}, {"category_id", 1}, {"area", 25}, {"iscrowd", 0}}}},
          {"categories", {{{"id", 1}, {"name", "person"}}, {{"id", 90}, {"name", "toothbrush"}}}}};
}

// Reads `doc` (dumped, or `raw` text when given) from a scratch annotation
// file and returns the error message ("" when it reads).
std::string read_error(const std::string& text) {
  TempDir dir("coco_bad");
  const fs::path file = dir.path / "coco" / "annotations" / "instances_train2017.json";
  write_text(file, text);
  try {
    read_coco(dir.str(), "train");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("milarun dataset coco -d " + dir.str()), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
    return msg;
  }
  return "";
}

}  // namespace

TEST(Coco, IsRegisteredUnderTheOriginalName) {
  const DatasetInfo* d = find_dataset("milarun.datasets:coco");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->name, "coco");
  EXPECT_EQ(find_dataset("milabench.datasets:coco"), d);
}

TEST(Coco, CategoriesAreTheEightyCocoIdsWithGaps) {
  const auto& cats = coco_categories();
  ASSERT_EQ(cats.size(), 80u);
  EXPECT_EQ(cats.front().id, 1);
  EXPECT_EQ(cats.back().id, 90);
  std::set<int> ids;
  for (const auto& c : cats) ids.insert(c.id);
  EXPECT_EQ(ids.size(), 80u);
  for (int gap : {12, 26, 29, 30, 45, 66, 68, 69, 71, 83}) EXPECT_EQ(ids.count(gap), 0u) << gap;
}

TEST(Coco, GeneratorWritesTheRealLayoutAndReadsBack) {
  const std::string root = generated_coco();
  EXPECT_TRUE(coco_present(root));
  EXPECT_EQ(coco_counts(1.0).train, 118287);
  EXPECT_EQ(coco_counts(1.0).val, 5000);
  const CocoSet train = read_coco(root, "train"), val = read_coco(root, "val");
  ASSERT_EQ(train.images.size(), 118u);
  ASSERT_EQ(val.images.size(), 5u);
  EXPECT_EQ(train.labels(), 81);
  JpegCodec codec;
  for (const CocoImage& img : train.images) {
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(read_file_bytes(img.path, &bytes, &error)) << error;
    JpegHeader hdr;
    ASSERT_TRUE(codec.header(bytes.data(), bytes.size(), &hdr, &error)) << error;
    EXPECT_EQ(hdr.width, img.width) << img.path;
    EXPECT_EQ(hdr.height, img.height) << img.path;
    for (const CocoBox& b : img.boxes) {
      EXPECT_GE(b.xywh[0], 0);
      EXPECT_GE(b.xywh[1], 0);
      EXPECT_LE(b.xywh[0] + b.xywh[2], img.width + 0.01f);
      EXPECT_LE(b.xywh[1] + b.xywh[3], img.height + 0.01f);
      EXPECT_GE(b.label, 1);
      EXPECT_LE(b.label, 80);
      EXPECT_EQ(coco_categories()[size_t(b.label - 1)].id, b.category_id);
    }
  }
  const json m = dataset_provenance(root, "coco");
  EXPECT_EQ(m["synthetic"], true) << m.dump();
  EXPECT_EQ(m["train"], 118);
}

TEST(Coco, GeneratedSizesAndBoxesFollowCocoShapes) {
  const CocoSet train = read_coco(generated_coco(), "train");
  int64_t long_640 = 0, boxes = 0, small = 0, most = 0;
  for (const CocoImage& img : train.images) {
    long_640 += std::max(img.width, img.height) == 640;
    boxes += int64_t(img.boxes.size());
    most = std::max<int64_t>(most, int64_t(img.boxes.size()));
    for (const CocoBox& b : img.boxes) small += b.xywh[2] * b.xywh[3] < 32 * 32;
  }
  const double n = double(train.images.size());
  EXPECT_GT(long_640 / n, 0.8) << "most COCO images are 640 on the long side";
  EXPECT_GT(boxes / n, 4.5);
  EXPECT_LT(boxes / n, 10.5);
  EXPECT_GE(most, 15) << "heavy tail";
  EXPECT_GT(double(small) / double(boxes), 0.25) << "many small boxes";
  EXPECT_EQ(train.annotations, boxes);
}

TEST(Coco, ReaderKeepsFieldsAndNumbersCategoriesInFileOrder) {
  TempDir dir("coco_rt");
  write_text(dir.path / "coco" / "annotations" / "instances_val2017.json", small_doc().dump());
  const CocoSet set = read_coco(dir.str(), "val");
  ASSERT_EQ(set.images.size(), 2u);
  EXPECT_EQ(set.images[0].id, 7);
  EXPECT_EQ(set.images[0].path, dir.str() + "/coco/val2017/a.jpg");
  EXPECT_TRUE(set.images[0].boxes.empty());
  ASSERT_EQ(set.images[1].boxes.size(), 2u);
  const CocoBox& b = set.images[1].boxes[0];
  EXPECT_FLOAT_EQ(b.xywh[0], 10.5f);
  EXPECT_FLOAT_EQ(b.xywh[3], 40.0f);
  EXPECT_EQ(b.category_id, 90);
  EXPECT_EQ(b.label, 2);  // second category of the file
  EXPECT_TRUE(b.iscrowd);
  EXPECT_DOUBLE_EQ(b.area, 900.0);
  EXPECT_EQ(set.images[1].boxes[1].label, 1);
  EXPECT_EQ(set.labels(), 3);
  EXPECT_EQ(set.annotations, 2);
}

TEST(Coco, MissingOrMalformedAnnotationsNameTheFile) {
  TempDir empty("coco_none");
  EXPECT_THROW(
      {
        try {
          read_coco(empty.str(), "train");
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("instances_train2017.json: missing"), std::string::npos) << e.what();
          throw;
        }
      },
      std::runtime_error);
  EXPECT_NE(read_error("{\"images\": [").find("not valid JSON"), std::string::npos);
  EXPECT_NE(read_error("[1, 2]").find("not a JSON object"), std::string::npos);

  json doc = small_doc();
  doc["annotations"][1].erase("bbox");
  EXPECT_NE(read_error(doc.dump()).find("annotations[1] has no \"bbox\""), std::string::npos);
  doc = small_doc();
  doc["annotations"][0]["category_id"] = 12;
  EXPECT_NE(read_error(doc.dump()).find("category_id 12 is not in categories"), std::string::npos);
  doc = small_doc();
  doc["annotations"][0]["image_id"] = 8;
  EXPECT_NE(read_error(doc.dump()).find("image_id 8 is not in images"), std::string::npos);
  doc = small_doc();
  doc["images"][1]["id"] = 7;
  EXPECT_NE(read_error(doc.dump()).find("duplicate image id 7"), std::string::npos);
  doc = small_doc();
  doc["images"][0]["width"] = "wide";
  EXPECT_NE(read_error(doc.dump()).find("images[0].width has the wrong type"), std::string::npos);
  doc = small_doc();
  doc["annotations"][0]["bbox"] = {1, 2, 3};
  EXPECT_NE(read_error(doc.dump()).find("bbox must have 4 numbers"), std::string::npos);
  doc = small_doc();
  doc.erase("categories");
  EXPECT_NE(read_error(doc.dump()).find("no \"categories\" array"), std::string::npos);
}

