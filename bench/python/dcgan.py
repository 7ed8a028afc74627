#!/usr/bin/env python3
"""PyTorch eager twin of `milarun run dcgan`: the 64x64 DCGAN (nz 100, ngf = ndf
= 64 unless given), BCE, Adam(lr 2e-4, betas (0.5, 0.999)) for both networks,
torchvision ImageFolder + DataLoader(shuffle, num_workers=--workers) with
Resize + CenterCrop(64) + ToTensor + Normalize(0.5, 0.5);
torch.set_num_threads(--workers). CPU only. No per-step .item() (the C++ side
reads the loss only at slice ends).

Prints one line: images/s over the timed steps (after --warmup steps).

  /usr/bin/python3 bench/python/dcgan.py --dataroot DATA --batch-size 32 --workers 2 --steps 20
"""
import argparse
import os

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.transforms as T

from timed import images_per_second


def generator(nz, w):
    layers, ch = [], [nz, w * 8, w * 4, w * 2, w]
    for i in range(4):
        layers += [nn.ConvTranspose2d(ch[i], ch[i + 1], 4, 1 if i == 0 else 2, 0 if i == 0 else 1, bias=False),
                   nn.BatchNorm2d(ch[i + 1]), nn.ReLU(True)]
    return nn.Sequential(*layers, nn.ConvTranspose2d(w, 3, 4, 2, 1, bias=False), nn.Tanh())


def discriminator(w):
    layers, ch = [nn.Conv2d(3, w, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True)], [w, w * 2, w * 4, w * 8]
    for i in range(3):
        layers += [nn.Conv2d(ch[i], ch[i + 1], 4, 2, 1, bias=False), nn.BatchNorm2d(ch[i + 1]),
                   nn.LeakyReLU(0.2, True)]
    return nn.Sequential(*layers, nn.Conv2d(w * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid(), nn.Flatten(0))


def init(m):
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        m.weight.data.normal_(0.0, 0.02)
    elif isinstance(m, nn.BatchNorm2d):
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.zero_()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--nz", type=int, default=100)
    p.add_argument("--ngf", type=int, default=64)
    p.add_argument("--ndf", type=int, default=64)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    a = p.parse_args()

    torch.manual_seed(1234)
    torch.set_num_threads(a.workers)
    tf = T.Compose([T.Resize(64), T.CenterCrop(64), T.ToTensor(), T.Normalize((0.5,) * 3, (0.5,) * 3)])
    train = datasets.ImageFolder(os.path.join(a.dataroot, "ImageNet", "train"), tf)
    loader = torch.utils.data.DataLoader(train, batch_size=a.batch_size, shuffle=True, num_workers=a.workers,
                                         drop_last=True)
    g, d = generator(a.nz, a.ngf), discriminator(a.ndf)
    g.apply(init)
    d.apply(init)
    bce = nn.BCELoss()
    opt_d = torch.optim.Adam(d.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_g = torch.optim.Adam(g.parameters(), lr=2e-4, betas=(0.5, 0.999))

    last = {}

    def train_step(batch):
        real = batch[0]
        n = real.size(0)
        label = torch.ones(n)
        d.zero_grad()
        err_real = bce(d(real), label)
        err_real.backward()
        fake = g(torch.randn(n, a.nz, 1, 1))
        label.fill_(0)
        err_fake = bce(d(fake.detach()), label)
        err_fake.backward()
        opt_d.step()
        g.zero_grad()
        label.fill_(1)
        err_g = bce(d(fake), label)
        err_g.backward()
        opt_g.step()
        last["loss"] = err_real + err_fake + err_g
        return n

    rate, images, elapsed = images_per_second(loader, a.warmup, a.steps, train_step)
    print(f"dcgan batch {a.batch_size} threads {a.workers}: {rate:.2f} images/s "
          f"({images} images in {elapsed:.1f} s, last loss {last['loss'].item():.3f})")


if __name__ == "__main__":
    main()
