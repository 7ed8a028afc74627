// bsds500: the Berkeley Segmentation Dataset 500 images, as the original's
// milarun.datasets:bsds500_reso reads them (the sub-pixel super-resolution
// workload, "reso"):
//   DATAROOT/bsds500/BSR/BSDS500/data/images/{train,val,test}/<id>.jpg
// Real images are 481x321 or 321x481 RGB JPEGs; 200 train, 100 val, 200 test.
// Only the images are read (the archive's groundTruth folders are not).
// No torch here.
#pragma once
#include <cstdint>
#include <string>

#include "data/dataset.hpp"
#include "data/image_folder.hpp"

namespace milabench {

// The registered name (as the download table's and the data folder's); the
// profiles' --dataset value "milarun.datasets:bsds500_reso" is an alias.
constexpr const char* kBsds500Name = "bsds500";
constexpr int kBsds500LongSide = 481;
constexpr int kBsds500ShortSide = 321;

struct Bsds500Counts {
  int64_t train = 0, val = 0, test = 0;
};

// 200 / 100 / 200 images times `scale`, at least 1 each.
Bsds500Counts bsds500_counts(double scale);

std::string bsds500_dir(const std::string& dataroot);                                  // DATAROOT/bsds500
std::string bsds500_split_dir(const std::string& dataroot, const std::string& split);  // .../images/<split>

// True when the train split holds at least one .jpg/.jpeg.
bool bsds500_present(const std::string& dataroot);

// Writes synthetic images in the real layout with `options.threads` threads:
// random smooth colour fields with noise, two in three landscape (481x321),
// one in three portrait (321x481), JPEG quality 90, named <id>.jpg with 6-digit
// ids unique over the three splits. Writes under DATAROOT/.bsds500.partial-XXXXXX
// and renames it to DATAROOT/bsds500 when complete. Does nothing when present
// and !options.force. Records the MANIFEST entry "bsds500" as synthetic.
// Throws std::invalid_argument for a scale outside (0, 1] and
// std::runtime_error naming the path on I/O failure.
void generate_bsds500(const std::string& dataroot, const DatasetOptions& options);

// The JPEGs of one split ("train", "val" or "test"), sorted by name, all with
// label 0 (classes = {split}). Throws std::runtime_error naming the folder and
// `milarun dataset bsds500 -d DATAROOT` when it is missing or empty.
ImageFolder scan_bsds500(const std::string& dataroot, const std::string& split);

}  // namespace milabench
