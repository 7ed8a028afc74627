#include "data/image_datasets.hpp"

#include <stdexcept>

#include "data/bsds500.hpp"
#include "data/dataset.hpp"
#include "data/fake_imagenet.hpp"

namespace milabench {

std::string image_dataset_name(const std::string& dataset) {
  const DatasetInfo* info = find_dataset(dataset);
  if (!info || (info->name != "fake_imagenet" && info->name != kBsds500Name))
    throw std::invalid_argument("--dataset " + dataset +
                                " is not an image dataset this workload reads (use "
                                "milarun.datasets:fake_imagenet or milarun.datasets:bsds500_reso)");
  return info->name;
}

ImageFolder open_image_dataset(const std::string& dataset, const std::string& dataroot, const std::string& split) {
  const std::string name = image_dataset_name(dataset);
  if (split != "train" && split != "val" && split != "test")
    throw std::invalid_argument("image dataset split must be train, val or test, got " + split);
  if (name == kBsds500Name) return scan_bsds500(dataroot, split);
  return scan_image_folder(fake_imagenet_dir(dataroot) + "/" + split, dataset_command(name, dataroot));
}

}  // namespace milabench
