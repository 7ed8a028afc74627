#include "data/image_datasets.hpp"

#include <stdexcept>

#include "data/dataset.hpp"
#include "data/fake_imagenet.hpp"

namespace milabench {

std::string image_dataset_name(const std::string& dataset) {
  const DatasetInfo* info = find_dataset(dataset);
  if (!info || info->name != "fake_imagenet")
    throw std::invalid_argument("--dataset " + dataset +
                                " is not an image-folder dataset this workload reads (use "
                                "milarun.datasets:fake_imagenet)");
  return info->name;
}

ImageFolder open_image_dataset(const std::string& dataset, const std::string& dataroot, const std::string& split) {
  const std::string name = image_dataset_name(dataset);
  if (split != "train" && split != "val" && split != "test")
    throw std::invalid_argument("image dataset split must be train, val or test, got " + split);
  return scan_image_folder(fake_imagenet_dir(dataroot) + "/" + split, dataset_command(name, dataroot));
}

}  // namespace milabench
