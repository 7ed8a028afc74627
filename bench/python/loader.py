#!/usr/bin/env python3
"""Eager twin of `milarun run loader`, following the original's
milarun/models/loader.py: torchvision ImageFolder(DATAROOT/ImageNet/train) with
RandomResizedCrop(224) + RandomHorizontalFlip + ToTensor + Normalize (PIL
decodes every JPEG whole, at full resolution), DataLoader(batch_size,
shuffle=True, num_workers=--workers, pin_memory when CUDA is there), one
warm-up batch outside the timed loop, then dataloop counting batch_size per
step (also for an epoch's short last batch). CPU: the batch stays on the host.

  /usr/bin/python3 bench/python/loader.py --dataroot DATA --batch-size 64 --workers 2 --max-count 2000
"""
import argparse
import os

import torch
import torchvision.datasets as datasets
import torchvision.transforms as transforms

from original_loop import RateLogger, add_init_torch_args, dataloop, init_torch, report


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--image-size", type=int, default=224, help="ours (milarun's --image-size); the original: 224")
    add_init_torch_args(p)
    a = p.parse_args()

    device = init_torch(a)
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
    for _, batch in zip(range(10), loader):  # warm-up: one batch, as the original
        for item in batch:
            item.to(device)
        break
    for it, batch in dataloop(loader, wrapper):
        it.set_count(a.batch_size)
        batch = [item.to(device) for item in batch]
    report("loader", wrapper, batch_size=a.batch_size)


if __name__ == "__main__":
    main()
