#!/usr/bin/env python3
"""Eager twin of `milarun run convnet`, following the original's
milarun/models/convnet/conv_simple.py: torchvision.models.<arch>() with its own
initialisation, CrossEntropyLoss, SGD(lr) without momentum, ImageFolder with
RandomResizedCrop + flip + Normalize (full-resolution PIL decode),
DataLoader(shuffle, num_workers=--workers, pin_memory), dataloop counting
batch_size per step, loss.item() every step. --bf16 is convnet_fp16 on a CPU
as milarun runs it (--half there: forward and loss under bfloat16 autocast,
float32 weights, no loss scaling); the original's CUDA --half is not twinned.

  /usr/bin/python3 bench/python/convnet.py --dataroot DATA --arch resnet18 --batch-size 16 --workers 2 --max-count 320
"""
import argparse
import os

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms

from original_loop import RateLogger, add_init_torch_args, dataloop, init_torch, report


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--arch", default="resnet18")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--image-size", type=int, default=224, help="ours (milarun's --image-size); the original: 224")
    p.add_argument("--bf16", action="store_true", help="bfloat16 autocast on the CPU (milarun's --half there)")
    add_init_torch_args(p)
    a = p.parse_args()

    device = init_torch(a)
    model = models.__dict__[a.arch]().to(device)
    criterion = nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.SGD(model.parameters(), a.lr)
    tf = transforms.Compose([
        transforms.RandomResizedCrop(a.image_size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    train = datasets.ImageFolder(os.path.join(a.dataroot, "ImageNet", "train"), tf)
    loader = torch.utils.data.DataLoader(train, batch_size=a.batch_size, shuffle=True, num_workers=a.workers or 0,
                                         pin_memory=torch.cuda.is_available())
    wrapper = RateLogger(a.max_count, a.sample_duration)
    for it, (input, target) in dataloop(loader, wrapper):
        it.set_count(a.batch_size)
        input, target = input.to(device), target.to(device)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
            loss = criterion(model(input), target)
        it.log(loss=loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    report(f"convnet {a.arch}", wrapper, batch_size=a.batch_size)


if __name__ == "__main__":
    main()
