#!/usr/bin/env python3
"""PyTorch eager twin of `milarun run convnet` (the original's conv_simple):
torchvision ResNet, CrossEntropy, plain SGD(lr), torchvision ImageFolder +
DataLoader(shuffle, pin_memory, num_workers=--workers) with RandomResizedCrop +
flip + Normalize, torch.set_num_threads(--workers) as the original's init_torch.
CPU only (this is the speed reference for the C++ build on the same machine).

Prints one line: images/s over the timed steps (after --warmup steps).

  /usr/bin/python3 bench/python/convnet.py --dataroot DATA --arch resnet18 \
      --batch-size 16 --workers 2 --image-size 224 --steps 30 [--bf16]
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as T


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--arch", default="resnet18")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--bf16", action="store_true", help="bfloat16 autocast (what `convnet --half` does on CPU)")
    a = p.parse_args()

    torch.manual_seed(1234)
    torch.set_num_threads(a.workers)
    tf = T.Compose([
        T.RandomResizedCrop(a.image_size),
        T.RandomHorizontalFlip(),
        T.ToTensor(),
        T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    train = datasets.ImageFolder(os.path.join(a.dataroot, "ImageNet", "train"), tf)
    loader = torch.utils.data.DataLoader(train, batch_size=a.batch_size, shuffle=True,
                                         num_workers=a.workers, pin_memory=False, drop_last=True)
    model = models.__dict__[a.arch]()
    print(f"{a.arch}: {sum(p.numel() for p in model.parameters())} parameters", flush=True)
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), a.lr)
    model.train()

    step, images, start = 0, 0, None
    while step < a.warmup + a.steps:
        for x, y in loader:
            if step == a.warmup:
                start = time.perf_counter()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
                loss = criterion(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step > a.warmup:
                images += x.shape[0]
            if step >= a.warmup + a.steps:
                break
    elapsed = time.perf_counter() - start
    print(f"convnet {a.arch}{' bf16' if a.bf16 else ''} batch {a.batch_size} size {a.image_size} threads {a.workers}: "
          f"{images / elapsed:.2f} images/s ({images} images in {elapsed:.1f} s, last loss {loss.item():.3f})")


if __name__ == "__main__":
    main()
