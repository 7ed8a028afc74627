// MNIST in torchvision's layout: DATAROOT/mnist/MNIST/raw/{train,t10k}-
// {images-idx3,labels-idx1}-ubyte (the idx format: big-endian magic 0x00000803
// / 0x00000801, dimensions, then uint8 data).
#pragma once
#include <torch/torch.h>

#include <string>

#include <nlohmann/json.hpp>

#include "data/dataset.hpp"

namespace milabench {

struct MnistSplit {
  torch::Tensor images;  // uint8 [N, 28, 28]
  torch::Tensor labels;  // int64 [N], 0..9
};

std::string mnist_raw_dir(const std::string& dataroot);

// Reads one split. Throws std::runtime_error naming the file and the command
// that makes the data ("run: milarun dataset mnist -d DATAROOT") when a file is
// missing, truncated, has a wrong magic number or mismatched counts.
MnistSplit read_mnist(const std::string& dataroot, bool train);

// Writes valid idx files of 60000*scale train and 10000*scale test images
// (at least 1 each): each class a fixed set of pen strokes with per-image
// jitter, so the data has structure to learn. Records the MANIFEST.
void generate_mnist(const std::string& dataroot, double scale);

bool mnist_present(const std::string& dataroot);

// Provenance for result files (data/manifest.hpp).
nlohmann::json mnist_provenance(const std::string& dataroot);

}  // namespace milabench
