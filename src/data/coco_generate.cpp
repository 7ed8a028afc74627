// Synthetic COCO: image sizes and boxes drawn from distributions shaped like
// COCO 2017's, JPEGs whose content shows the boxes (one colour per category
// over a noisy gradient), annotation files in the real JSON format.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "data/coco.hpp"
#include "data/jpeg.hpp"
#include "data/manifest.hpp"
#include "data/parallel_jobs.hpp"
#include "sys/staged_folder.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace milabench {
namespace {

constexpr int kCocoJpegQuality = 85;
constexpr int kMaxBoxes = 93;  // the most boxes one COCO 2017 image has

struct Size {
  int w, h;
  double weight;
};
// Most COCO images are 640 on the long side; these are its commonest shapes.
const std::vector<Size>& common_sizes() {
  static const std::vector<Size> table = {
      {640, 480, 0.30}, {640, 427, 0.17}, {480, 640, 0.08}, {427, 640, 0.06}, {640, 426, 0.05},
      {500, 375, 0.04}, {375, 500, 0.02}, {640, 360, 0.04}, {612, 612, 0.02}, {640, 640, 0.02},
      {640, 512, 0.02}, {333, 500, 0.01}, {640, 424, 0.03},
  };
  return table;
}

struct GenImage {
  int64_t id;
  int w, h;
  std::vector<CocoBox> boxes;
};

GenImage draw_image_spec(int64_t id, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  GenImage g{id, 640, 480, {}};
  double pick = u(rng);  // the table covers 86%; the rest: long side 640, short side 240..640
  bool common = false;
  for (const Size& s : common_sizes()) {
    if (pick < s.weight) {
      g.w = s.w, g.h = s.h, common = true;
      break;
    }
    pick -= s.weight;
  }
  if (!common) {
    const int shorter = std::uniform_int_distribution<int>(240, 640)(rng);
    if (u(rng) < 0.7)
      g.h = shorter;
    else
      g.w = shorter, g.h = 640;
  }
  // Boxes per image: ~1% none, else log-normal (median ~5, mean ~7), capped at 93.
  int n = 0;
  if (u(rng) >= 0.01) {
    n = int(std::exp(std::normal_distribution<double>(1.65, 0.85)(rng)));
    n = std::clamp(n, 1, kMaxBoxes);
  }
  const auto& cats = coco_categories();
  for (int k = 0; k < n; ++k) {
    // COCO: 41% small (< 32^2 px), 34% medium (< 96^2), 25% large.
    const double c = u(rng), full = 0.8 * g.w * g.h;
    const double lo = c < 0.41 ? 16 : c < 0.75 ? 1024 : 9216, hi = c < 0.41 ? 1024 : c < 0.75 ? 9216 : full;
    const double area = lo + u(rng) * std::max(0.0, hi - lo);
    const double aspect = std::exp(std::log(1.0 / 3) + u(rng) * 2 * std::log(3.0));
    const double bw = std::clamp(std::sqrt(area * aspect), 1.0, double(g.w));
    const double bh = std::clamp(std::sqrt(area / aspect), 1.0, double(g.h));
    CocoBox b;
    auto round2 = [](double v) { return float(std::round(v * 100) / 100); };
    b.xywh = {round2(u(rng) * (g.w - bw)), round2(u(rng) * (g.h - bh)), round2(bw), round2(bh)};
    // A quarter of the boxes are people, as in COCO; the rest any category.
    const size_t cat = u(rng) < 0.25 ? 0 : std::uniform_int_distribution<size_t>(0, cats.size() - 1)(rng);
    b.category_id = cats[cat].id;
    b.label = int(cat) + 1;
    b.iscrowd = u(rng) < 0.01;
    b.area = std::round(double(b.xywh[2]) * b.xywh[3] * 100) / 100;
    g.boxes.push_back(b);
  }
  return g;
}

// A noisy two-colour gradient, then each box (largest first) as a noisy patch
// of its category's colour.
void render(const GenImage& g, uint64_t seed, std::vector<uint8_t>& rgb) {
  std::mt19937_64 rng(seed ^ 0xC0C0C0C0ull);
  rgb.resize(size_t(g.w) * g.h * 3);
  uint8_t top[3], bottom[3];
  for (int c = 0; c < 3; ++c) top[c] = uint8_t(rng()), bottom[c] = uint8_t(rng());
  uint64_t noise = rng();
  auto next_noise = [&noise] {  // xorshift: cheap per-pixel noise in [-16, 15]
    noise ^= noise << 13, noise ^= noise >> 7, noise ^= noise << 17;
    return int(noise & 31) - 16;
  };
  for (int y = 0; y < g.h; ++y) {
    const float t = float(y) / float(std::max(1, g.h - 1));
    uint8_t* row = rgb.data() + size_t(y) * g.w * 3;
    for (int x = 0; x < g.w; ++x)
      for (int c = 0; c < 3; ++c)
        row[x * 3 + c] = uint8_t(std::clamp(int(top[c] + t * (bottom[c] - top[c])) + next_noise(), 0, 255));
  }
  std::vector<const CocoBox*> order;
  for (const auto& b : g.boxes) order.push_back(&b);
  std::sort(order.begin(), order.end(), [](const CocoBox* a, const CocoBox* b) { return a->area > b->area; });
  for (const CocoBox* b : order) {
    const uint32_t h = uint32_t(b->category_id) * 2654435761u;
    const int colour[3] = {int(h >> 24), int((h >> 16) & 255), int((h >> 8) & 255)};
    const int x0 = int(b->xywh[0]), y0 = int(b->xywh[1]);
    const int x1 = std::min(g.w, int(std::ceil(b->xywh[0] + b->xywh[2])));
    const int y1 = std::min(g.h, int(std::ceil(b->xywh[1] + b->xywh[3])));
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x)
        for (int c = 0; c < 3; ++c)
          rgb[(size_t(y) * g.w + x) * 3 + c] = uint8_t(std::clamp(colour[c] + next_noise(), 0, 255));
  }
}

std::string file_name(int64_t id) {
  char name[32];
  std::snprintf(name, sizeof name, "%012lld.jpg", static_cast<long long>(id));
  return name;
}

json annotation_doc(const std::vector<GenImage>& images, int64_t& next_ann_id) {
  json imgs = json::array(), anns = json::array(), cats = json::array();
  for (const auto& g : images) {
    imgs.push_back({{"id", g.id}, {"file_name", file_name(g.id)}, {"width", g.w}, {"height", g.h}, {"license", 1}});
    for (const auto& b : g.boxes)
      anns.push_back({{"id", next_ann_id++},
                      {"image_id", g.id},
                      {"category_id", b.category_id},
                      {"bbox", {b.xywh[0], b.xywh[1], b.xywh[2], b.xywh[3]}},
                      {"area", b.area},
                      {"iscrowd", b.iscrowd ? 1 : 0},
                      {"segmentation", json::array({json::array({b.xywh[0], b.xywh[1], b.xywh[0] + b.xywh[2], b.xywh[1],
                                                                 b.xywh[0] + b.xywh[2], b.xywh[1] + b.xywh[3],
                                                                 b.xywh[0], b.xywh[1] + b.xywh[3]})})}});
  }
  for (const auto& c : coco_categories()) cats.push_back({{"id", c.id}, {"name", c.name}, {"supercategory", ""}});
  return {{"info", {{"description", "synthetic COCO 2017 layout (milarun dataset coco)"}, {"year", 2017}}},
          {"licenses", json::array({{{"id", 1}, {"name", "synthetic"}, {"url", ""}}})},
          {"images", std::move(imgs)},
          {"annotations", std::move(anns)},
          {"categories", std::move(cats)}};
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), std::streamsize(text.size()));
  out.close();
  if (!out) throw std::runtime_error("coco: cannot write " + path.string() + " (is DATAROOT writable?)");
}

}  // namespace

void generate_coco(const std::string& dataroot, const DatasetOptions& options) {
  if (!(options.scale > 0 && options.scale <= 1))
    throw std::invalid_argument("coco: --scale must be in (0, 1], got " + std::to_string(options.scale));
  if (!options.force && coco_present(dataroot)) return;
  StagedFolder staged(coco_dir(dataroot), "coco", "partial", {"train2017", "val2017", "annotations"});
  const fs::path& tmp_dir = staged.path();

  const CocoCounts counts = coco_counts(options.scale);
  struct Split {
    const char* name;
    std::vector<GenImage> images;
  };
  std::vector<Split> splits = {{"train", {}}, {"val", {}}};
  int64_t next_ann_id = 1;
  for (auto& s : splits) {
    const bool train = std::string(s.name) == "train";
    const int64_t n = train ? counts.train : counts.val, first_id = train ? 1 : 1000000000;
    for (int64_t i = 0; i < n; ++i) s.images.push_back(draw_image_spec(first_id + i, uint64_t(first_id + i) * 7919u));
    write_text(tmp_dir / "annotations" / (std::string("instances_") + s.name + "2017.json"),
               annotation_doc(s.images, next_ann_id).dump());
  }

  const int64_t total = counts.train + counts.val;
  run_parallel_jobs(total, options.threads, [&](int64_t job) {
    thread_local JpegCodec codec;  // one TurboJPEG handle per generator thread
    thread_local std::vector<uint8_t> rgb;
    const Split& s = job < counts.train ? splits[0] : splits[1];
    const GenImage& g = s.images[size_t(job < counts.train ? job : job - counts.train)];
    render(g, uint64_t(g.id), rgb);
    write_text(tmp_dir / (std::string(s.name) + "2017") / file_name(g.id),
               codec.encode(rgb.data(), g.w, g.h, kCocoJpegQuality));
  });
  staged.publish(/*replace=*/true);
  record_manifest(dataroot, "coco",
                  {{"synthetic", true},
                   {"generator", "milarun (COCO-shaped sizes and boxes, category-coloured patches, JPEG quality 85)"},
                   {"scale", options.scale},
                   {"train", counts.train},
                   {"val", counts.val},
                   {"annotations", next_ann_id - 1},
                   {"layout", "coco/{train2017,val2017}/*.jpg, coco/annotations/instances_{train,val}2017.json"}});
}

}  // namespace milabench
