// fake_imagenet: the original's generated stand-in for ImageNet, in
// torchvision ImageFolder layout:
//   DATAROOT/ImageNet/{train,val,test}/<class>/<i>.jpeg
// <class> is a class number 0..999, <i> the image's index within its split.
// Each image is a 512x512 RGB JPEG of random noise (the original saved
// torchvision FakeData noise with PIL at quality 75, 4:2:0; so do we).
// No torch here.
#pragma once
#include <cstdint>
#include <string>

#include "data/dataset.hpp"

namespace milabench {

constexpr int kFakeImagenetClasses = 1000;
constexpr int kFakeImagenetSide = 512;
constexpr int kFakeImagenetQuality = 75;

struct FakeImagenetCounts {
  int64_t train = 0, val = 0, test = 0;
};

// 100 000 / 5 000 / 5 000 images times `scale`, at least 1 each.
// (The issue and the original README's 16 GB figure give these counts; the
// 2020 code's last version divides them by 100, i.e. --scale 0.01.)
FakeImagenetCounts fake_imagenet_counts(double scale);

std::string fake_imagenet_dir(const std::string& dataroot);  // DATAROOT/ImageNet

// Writes the three splits with `options.threads` threads (0 = all CPUs this
// process may use). Image i of a split goes to class i % 1000, so every class
// folder that exists holds at least one image. Writes under
// DATAROOT/.ImageNet.partial-XXXXXX and renames it to DATAROOT/ImageNet when all
// files are written, so an interrupted run never leaves a dataset that looks
// complete. When the data is present and !options.force, does nothing.
// Records the MANIFEST entry "fake_imagenet". Throws std::runtime_error
// naming the path on I/O failure.
void generate_fake_imagenet(const std::string& dataroot, const DatasetOptions& options);

// True when DATAROOT/ImageNet/train holds at least one class folder with a file.
bool fake_imagenet_present(const std::string& dataroot);

}  // namespace milabench
