#!/usr/bin/env python3
"""Eager twin of `milarun run fast_style`, following the original's
milarun/models/neural_style/{neural_style,transformer_net,vgg,utils}.py:
TransformerNet, Adam(lr), MSELoss, Vgg16 slices of torchvision's vgg16
features (relu1_2, relu2_2, relu3_3, relu4_3; random weights on both sides:
no pretrained download), ImageFolder with Resize + CenterCrop(--image-size) +
ToTensor + x255 (full PIL decode), DataLoader(num_workers=--workers, no
shuffle), style image repeated batch_size times, dataloop counting len(x)
per step, total_loss.item() every step. The style image is milarun's
generated stripes (the original's candy.jpg is not shipped): it is only used
once, before the timed loop.

  /usr/bin/python3 bench/python/fast_style.py --dataroot DATA --batch-size 8 --image-size 64 --style-size 64 \
      --workers 2 --max-count 320
"""
import argparse
import math
import os
from collections import namedtuple

import torch
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms

from original_loop import RateLogger, add_init_torch_args, dataloop, init_torch, report


class ConvLayer(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        self.reflection_pad = torch.nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        return self.conv2d(self.reflection_pad(x))


class ResidualBlock(torch.nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        out = self.relu(self.in1(self.conv1(x)))
        return self.in2(self.conv2(out)) + x


class UpsampleConvLayer(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        self.reflection_pad = torch.nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        if self.upsample:
            x = torch.nn.functional.interpolate(x, mode="nearest", scale_factor=self.upsample)
        return self.conv2d(self.reflection_pad(x))


class TransformerNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.in1 = ConvLayer(3, 32, 9, 1), torch.nn.InstanceNorm2d(32, affine=True)
        self.conv2, self.in2 = ConvLayer(32, 64, 3, 2), torch.nn.InstanceNorm2d(64, affine=True)
        self.conv3, self.in3 = ConvLayer(64, 128, 3, 2), torch.nn.InstanceNorm2d(128, affine=True)
        self.res = torch.nn.Sequential(*[ResidualBlock(128) for _ in range(5)])
        self.deconv1, self.in4 = UpsampleConvLayer(128, 64, 3, 1, 2), torch.nn.InstanceNorm2d(64, affine=True)
        self.deconv2, self.in5 = UpsampleConvLayer(64, 32, 3, 1, 2), torch.nn.InstanceNorm2d(32, affine=True)
        self.deconv3 = ConvLayer(32, 3, 9, 1)
        self.relu = torch.nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res(y)
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.relu(self.in5(self.deconv2(y)))
        return self.deconv3(y)


VggOutputs = namedtuple("VggOutputs", ["relu1_2", "relu2_2", "relu3_3", "relu4_3"])


class Vgg16(torch.nn.Module):
    def __init__(self):
        super().__init__()
        features = models.vgg16().features  # the original: pretrained=True (same work, other values)
        self.slices = torch.nn.ModuleList(
            torch.nn.Sequential(*[features[i] for i in range(a, b)]) for a, b in ((0, 4), (4, 9), (9, 16), (16, 23)))
        for param in self.parameters():
            param.requires_grad = False

    def forward(self, X):
        outs = []
        for s in self.slices:
            X = s(X)
            outs.append(X)
        return VggOutputs(*outs)


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    return features.bmm(features.transpose(1, 2)) / (ch * h * w)


def normalize_batch(batch):
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std


def stripes(s):
    """milarun's generated style image [3, s, s], values 0..255."""
    yy, xx = torch.arange(s, dtype=torch.float32).view(s, 1), torch.arange(s, dtype=torch.float32).view(1, s)
    return torch.stack([127.5 * (1 + torch.sin(0.15 * (xx * math.cos(0.7 + 1.1 * c) + yy * math.sin(0.7 + 1.1 * c))))
                        for c in range(3)])


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--image-size", type=int, default=256)
    p.add_argument("--style-size", type=int, default=256)
    p.add_argument("--content-weight", type=float, default=1e5)
    p.add_argument("--style-weight", type=float, default=1e10)
    p.add_argument("--lr", type=float, default=1e-3)
    add_init_torch_args(p)
    a = p.parse_args(argv)

    device = init_torch(a)
    transform = transforms.Compose([
        transforms.Resize(a.image_size), transforms.CenterCrop(a.image_size), transforms.ToTensor(),
        transforms.Lambda(lambda x: x.mul(255))])
    train = datasets.ImageFolder(os.path.join(a.dataroot, "ImageNet", "train"), transform)
    loader = torch.utils.data.DataLoader(train, batch_size=a.batch_size, num_workers=a.workers or 0)
    transformer = TransformerNet().to(device)
    optimizer = torch.optim.Adam(transformer.parameters(), a.lr)
    mse_loss = torch.nn.MSELoss()
    vgg = Vgg16().to(device)
    style = stripes(a.style_size).repeat(a.batch_size, 1, 1, 1).to(device)
    gram_style = [gram_matrix(y) for y in vgg(normalize_batch(style))]

    wrapper = RateLogger(a.max_count, a.sample_duration)
    transformer.train()
    for it, (x, _) in dataloop(loader, wrapper):
        it.set_count(len(x))
        n_batch = len(x)
        x = x.to(device)
        y = transformer(x)
        y = normalize_batch(y)
        x = normalize_batch(x)
        optimizer.zero_grad()
        features_y = vgg(y)
        features_x = vgg(x)
        content_loss = a.content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)
        style_loss = 0.0
        for ft_y, gm_s in zip(features_y, gram_style):
            style_loss += mse_loss(gram_matrix(ft_y), gm_s[:n_batch, :, :])
        style_loss *= a.style_weight
        total_loss = content_loss + style_loss
        total_loss.backward()
        it.log(loss=total_loss.item())
        optimizer.step()
    report("fast_style", wrapper, batch_size=a.batch_size)


if __name__ == "__main__":
    main()
