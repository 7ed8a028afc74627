#!/usr/bin/env python3
"""PyTorch eager twin of `milarun run fast_style`: the fast-neural-style
TransformerNet (reflection-padded convs, affine InstanceNorm, 5 residual blocks,
nearest-upsample convs) trained with Adam(1e-3) against a random-weight
torchvision VGG16 (relu1_2, relu2_2, relu3_3, relu4_3): content MSE on relu2_2
x 1e5 + Gram-matrix style MSE x 1e10. Data: ImageFolder fake_imagenet,
Resize + CenterCrop(--image-size), x255, DataLoader(num_workers=--workers, no
shuffle); the style image is the same generated stripes as the C++ side.
torch.set_num_threads(--workers). CPU only.

Prints one line: images/s over the timed steps (after --warmup steps).

  /usr/bin/python3 bench/python/fast_style.py --dataroot DATA --batch-size 8 --image-size 64 --workers 2 --steps 10
"""
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as T

from timed import images_per_second


class Conv(nn.Module):
    def __init__(self, cin, cout, k, stride=1, upsample=1):
        super().__init__()
        self.upsample = upsample
        self.pad = nn.ReflectionPad2d(k // 2)
        self.conv = nn.Conv2d(cin, cout, k, stride)

    def forward(self, x):
        if self.upsample > 1:
            x = F.interpolate(x, scale_factor=self.upsample, mode="nearest")
        return self.conv(self.pad(x))


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(Conv(c, c, 3), nn.InstanceNorm2d(c, affine=True), nn.ReLU(),
                                  Conv(c, c, 3), nn.InstanceNorm2d(c, affine=True))

    def forward(self, x):
        return self.body(x) + x


def transformer():
    def block(cin, cout, k, stride=1, up=1):
        return [Conv(cin, cout, k, stride, up), nn.InstanceNorm2d(cout, affine=True), nn.ReLU()]
    return nn.Sequential(*block(3, 32, 9), *block(32, 64, 3, 2), *block(64, 128, 3, 2),
                         *[Residual(128) for _ in range(5)],
                         *block(128, 64, 3, 1, 2), *block(64, 32, 3, 1, 2), Conv(32, 3, 9))


def normalize(x):
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    return (x / 255.0 - mean) / std


def gram(y):
    b, c, h, w = y.shape
    f = y.reshape(b, c, h * w)
    return f.bmm(f.transpose(1, 2)) / (c * h * w)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--image-size", type=int, default=256)
    p.add_argument("--style-size", type=int, default=256)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    a = p.parse_args()

    torch.manual_seed(1234)
    torch.set_num_threads(a.workers)
    tf = T.Compose([T.Resize(a.image_size), T.CenterCrop(a.image_size), T.ToTensor(),
                    T.Lambda(lambda x: x.mul(255))])
    train = datasets.ImageFolder(os.path.join(a.dataroot, "ImageNet", "train"), tf)
    loader = torch.utils.data.DataLoader(train, batch_size=a.batch_size, num_workers=a.workers, drop_last=True)
    net = transformer()
    vgg = models.vgg16()
    for q in vgg.parameters():
        q.requires_grad_(False)
    cuts = [4, 9, 16, 23]

    def features(x):
        out, start = [], 0
        for end in cuts:
            x = vgg.features[start:end](x)
            out.append(x)
            start = end
        return out

    s = a.style_size
    yy, xx = torch.arange(s, dtype=torch.float32).view(s, 1), torch.arange(s, dtype=torch.float32).view(1, s)
    style = torch.stack([127.5 * (1 + torch.sin(0.15 * (xx * math.cos(0.7 + 1.1 * c) + yy * math.sin(0.7 + 1.1 * c))))
                         for c in range(3)]).unsqueeze(0)
    with torch.no_grad():
        gram_style = [gram(f) for f in features(normalize(style))]
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    mse = nn.MSELoss()
    last = {}

    def train_step(batch):
        x = batch[0]
        opt.zero_grad()
        fy = features(normalize(net(x)))
        with torch.no_grad():
            fx = features(normalize(x))
        style_loss = 0.0
        for f, g in zip(fy, gram_style):
            gy = gram(f)
            style_loss = style_loss + mse(gy, g.expand_as(gy))
        loss = 1e5 * mse(fy[1], fx[1]) + 1e10 * style_loss
        loss.backward()
        opt.step()
        last["loss"] = loss
        return x.size(0)

    rate, images, elapsed = images_per_second(loader, a.warmup, a.steps, train_step)
    print(f"fast_style batch {a.batch_size} size {a.image_size} threads {a.workers}: {rate:.2f} images/s "
          f"({images} images in {elapsed:.1f} s, last loss {last['loss'].item():.4g})")


if __name__ == "__main__":
    main()
