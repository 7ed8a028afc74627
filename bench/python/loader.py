#!/usr/bin/env python3
"""PyTorch twin of `milarun run loader` (the original's loader workload):
torchvision ImageFolder(DATAROOT/ImageNet/train) with RandomResizedCrop(224) +
flip + ToTensor + Normalize, DataLoader(batch 256, shuffle, num_workers=W).
Decoding is PIL's (python3-pil, libjpeg-turbo underneath). CPU: the batch stays
on the host, as `milarun run loader --no-cuda`.

Prints images/s over the timed batches (after one warm-up batch, as the original).

  /usr/bin/python3 bench/python/loader.py --dataroot DATA --batch-size 256 --workers 2 --batches 20
"""
import argparse
import os
import time

import torch
import torchvision.datasets as datasets
import torchvision.transforms as T


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--batches", type=int, default=20)
    a = p.parse_args()

    torch.set_num_threads(a.workers)
    tf = T.Compose([
        T.RandomResizedCrop(224),
        T.RandomHorizontalFlip(),
        T.ToTensor(),
        T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    train = datasets.ImageFolder(os.path.join(a.dataroot, "ImageNet", "train"), tf)
    loader = torch.utils.data.DataLoader(train, batch_size=a.batch_size, shuffle=True,
                                         num_workers=a.workers, drop_last=True)
    n, images, start = 0, 0, None
    while n < a.batches + 1:
        for x, _ in loader:
            if n == 0:
                start = time.perf_counter()  # after the warm-up batch
            else:
                images += x.shape[0]
            n += 1
            if n >= a.batches + 1:
                break
    elapsed = time.perf_counter() - start
    print(f"loader batch {a.batch_size} workers {a.workers}: {images / elapsed:.1f} images/s "
          f"({images} images in {elapsed:.1f} s)")


if __name__ == "__main__":
    main()
