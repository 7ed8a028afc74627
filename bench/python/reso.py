#!/usr/bin/env python3
"""PyTorch eager twin of `milarun run reso`: the sub-pixel super-resolution net
(conv 5x5 64, 3x3 64, 3x3 32, 3x3 r^2, PixelShuffle(r), orthogonal init), MSE,
Adam(--lr), on the Y channel of BSDS500 train images: target CenterCrop(256),
input that crop Resize(256 / r); DataLoader(shuffle, num_workers=--workers);
torch.set_num_threads(--workers). CPU only.

Prints one line: images/s over the timed steps (after --warmup steps).

  /usr/bin/python3 bench/python/reso.py --dataroot DATA --batch-size 16 --workers 2 --steps 20
"""
import argparse
import os

import torch
import torch.nn as nn
import torchvision.transforms as T
from PIL import Image

from timed import images_per_second


class Luma(torch.utils.data.Dataset):
    def __init__(self, folder, crop, r):
        self.files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".jpg"))
        self.input = T.Compose([T.CenterCrop(crop), T.Resize(crop // r), T.ToTensor()])
        self.target = T.Compose([T.CenterCrop(crop), T.ToTensor()])

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        y = Image.open(self.files[i]).convert("YCbCr").split()[0]
        return self.input(y), self.target(y)


def net(r):
    convs = [nn.Conv2d(1, 64, 5, 1, 2), nn.Conv2d(64, 64, 3, 1, 1), nn.Conv2d(64, 32, 3, 1, 1),
             nn.Conv2d(32, r * r, 3, 1, 1)]
    for c in convs[:3]:
        nn.init.orthogonal_(c.weight, nn.init.calculate_gain("relu"))
    nn.init.orthogonal_(convs[3].weight)
    return nn.Sequential(convs[0], nn.ReLU(), convs[1], nn.ReLU(), convs[2], nn.ReLU(), convs[3],
                         nn.PixelShuffle(r))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--upscale-factor", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    a = p.parse_args()

    torch.manual_seed(1234)
    torch.set_num_threads(a.workers)
    crop = 256 - 256 % a.upscale_factor
    data = Luma(os.path.join(a.dataroot, "bsds500/BSR/BSDS500/data/images/train"), crop, a.upscale_factor)
    loader = torch.utils.data.DataLoader(data, batch_size=a.batch_size, shuffle=True, num_workers=a.workers,
                                         drop_last=True)
    model = net(a.upscale_factor)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    mse = nn.MSELoss()
    last = {}

    def train_step(batch):
        x, target = batch
        opt.zero_grad()
        loss = mse(model(x), target)
        loss.backward()
        opt.step()
        last["loss"] = loss
        return x.size(0)

    rate, images, elapsed = images_per_second(loader, a.warmup, a.steps, train_step)
    print(f"reso batch {a.batch_size} threads {a.workers}: {rate:.2f} images/s "
          f"({images} images in {elapsed:.1f} s, last loss {last['loss'].item():.4f})")


if __name__ == "__main__":
    main()
