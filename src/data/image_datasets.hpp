// Image datasets by the name a workload's --dataset gives (short name or
// "milarun.datasets:NAME"), as (path, label) lists for ImageLoader.
// New image datasets (bsds500, coco) add a case in image_datasets.cpp.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "data/image_folder.hpp"

namespace milabench {

// `split` is "train", "val" or "test". Throws std::invalid_argument for a
// dataset that is not an image-folder dataset, and std::runtime_error with the
// command that makes the data when it is missing or empty.
ImageFolder open_image_dataset(const std::string& dataset, const std::string& dataroot, const std::string& split);

// Short registry name of `dataset` ("fake_imagenet"); throws
// std::invalid_argument naming --dataset when unknown.
std::string image_dataset_name(const std::string& dataset);

}  // namespace milabench
