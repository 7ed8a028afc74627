#!/usr/bin/env python3
"""Eager twin of `milarun run dcgan`, following the original's
milarun/models/dcgan/main.py: the 64x64 Generator/Discriminator with
weights_init, BCELoss, Adam(lr, betas (beta1, 0.999)) for both, ImageFolder
with Resize(64) + CenterCrop(64) + ToTensor + Normalize(0.5, 0.5) (full
PIL decode), DataLoader(shuffle, num_workers=--workers), dataloop counting
batch_size per step, and the original's six host reads per step (D(x),
D(G(z)) twice, errD_real, errD_fake, errG).

  /usr/bin/python3 bench/python/dcgan.py --dataroot DATA --batch-size 32 --workers 2 --max-count 960
"""
import argparse
import os

import torch
import torch.nn as nn
import torchvision.datasets as dset
import torchvision.transforms as transforms

from original_loop import RateLogger, add_init_torch_args, dataloop, init_torch, report


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        m.weight.data.normal_(0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


class Generator(nn.Module):
    def __init__(self, nz, nc, ngf):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self, nc, ndf):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--image-size", type=int, default=64)
    p.add_argument("--nz", type=int, default=100)
    p.add_argument("--ngf", type=int, default=64)
    p.add_argument("--ndf", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.0002)
    p.add_argument("--beta1", type=float, default=0.5)
    add_init_torch_args(p)
    a = p.parse_args(argv)

    device = init_torch(a)
    transform = transforms.Compose([
        transforms.Resize(a.image_size), transforms.CenterCrop(a.image_size), transforms.ToTensor(),
        transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
    train = dset.ImageFolder(os.path.join(a.dataroot, "ImageNet", "train"), transform)
    loader = torch.utils.data.DataLoader(train, batch_size=a.batch_size, shuffle=True, num_workers=a.workers or 0)
    netG = Generator(a.nz, 3, a.ngf).to(device)
    netG.apply(weights_init)
    netD = Discriminator(3, a.ndf).to(device)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=a.lr, betas=(a.beta1, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=a.lr, betas=(a.beta1, 0.999))
    real_label, fake_label = 1.0, 0.0

    wrapper = RateLogger(a.max_count, a.sample_duration)
    for it, data in dataloop(loader, wrapper):
        it.set_count(a.batch_size)
        data = [d.to(device) for d in data]
        netD.zero_grad()
        real_cpu = data[0].to(device)
        bsize = real_cpu.size(0)
        label = torch.full((bsize,), real_label, device=device)
        output = netD(real_cpu)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        noise = torch.randn(bsize, a.nz, 1, 1, device=device)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        optimizerD.step()
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        it.log(errD_real=errD_real.item(), errD_fake=errD_fake.item(), errG=errG.item())
    report("dcgan", wrapper, batch_size=a.batch_size)


if __name__ == "__main__":
    main()
