#!/usr/bin/env python3
"""Eager twin of `milarun run reso`, following the original's
milarun/models/subpixel.py and milarun/datasets/bsds500_reso.py: Net (conv 5x5
64, 3x3 64, 3x3 32, 3x3 r^2, PixelShuffle, orthogonal init), MSELoss,
Adam(lr); each BSDS500 train image opened with PIL, converted to YCbCr, its Y
channel CenterCrop(256) (target) and CenterCrop(256) + Resize(128) (input);
DataLoader(shuffle, num_workers=--workers); dataloop counting batch_size per
step, also for the epoch's short last batch (200 % 64 = 8 images);
loss.item() every step.

  /usr/bin/python3 bench/python/reso.py --dataroot DATA --batch-size 16 --workers 2 --max-count 1600
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.init as init
import torchvision.transforms as transforms
from PIL import Image

from original_loop import RateLogger, add_init_torch_args, dataloop, init_torch, report


def load_img(filepath):
    y, _, _ = Image.open(filepath).convert("YCbCr").split()
    return y


class DatasetFromFolder(torch.utils.data.Dataset):
    def __init__(self, image_dir, input_transform, target_transform):
        self.image_filenames = [os.path.join(image_dir, x) for x in os.listdir(image_dir)
                                if any(x.endswith(e) for e in (".png", ".jpg", ".jpeg"))]
        self.input_transform, self.target_transform = input_transform, target_transform

    def __getitem__(self, index):
        input = load_img(self.image_filenames[index])
        target = input.copy()
        return self.input_transform(input), self.target_transform(target)

    def __len__(self):
        return len(self.image_filenames)


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 64, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(64, 64, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(64, 32, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(32, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        init.orthogonal_(self.conv1.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv2.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv3.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv4.weight)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        return self.pixel_shuffle(self.conv4(x))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--upscale-factor", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.1)
    add_init_torch_args(p)
    a = p.parse_args(argv)

    device = init_torch(a)
    crop = 256 - 256 % a.upscale_factor
    train_set = DatasetFromFolder(
        os.path.join(a.dataroot, "bsds500/BSR/BSDS500/data/images/train"),
        transforms.Compose([transforms.CenterCrop(crop), transforms.Resize(crop // a.upscale_factor),
                            transforms.ToTensor()]),
        transforms.Compose([transforms.CenterCrop(crop), transforms.ToTensor()]))
    loader = torch.utils.data.DataLoader(dataset=train_set, num_workers=a.workers or 0, batch_size=a.batch_size,
                                         shuffle=True)
    model = Net(a.upscale_factor).to(device)
    model.train()
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=a.lr)
    wrapper = RateLogger(a.max_count, a.sample_duration)
    for it, (input, target) in dataloop(loader, wrapper):
        it.set_count(a.batch_size)
        input, target = input.to(device), target.to(device)
        optimizer.zero_grad()
        loss = criterion(model(input), target)
        it.log(loss=loss.item())
        loss.backward()
        optimizer.step()
    report("reso", wrapper, batch_size=a.batch_size)


if __name__ == "__main__":
    main()
