#!/usr/bin/env python3
"""Eager twin of `milarun run convnet`, following the original's
milarun/models/convnet/conv_simple.py: torchvision.models.<arch>() with its own
initialisation, CrossEntropyLoss, SGD(lr) without momentum, ImageFolder with
RandomResizedCrop + flip + Normalize (full-resolution PIL decode),
DataLoader(shuffle, num_workers=--workers, pin_memory), dataloop counting
batch_size per step, loss.item() every step, no sync at slice ends
(iteration_wrapper(exp, sync=None)). --bf16 is convnet_fp16 on a CPU as milarun
runs it (--half there: forward and loss under bfloat16 autocast, float32
weights, no loss scaling). --half is the original's CUDA convnet_fp16: SGD built
over the float32 parameters, then the model halved (affine BatchNorm float32),
so apex's FP16_Optimizer kept no masters and SGD steps the float16 weights,
with apex's dynamic loss scale (apex_fp16.py); --half-dtype bfloat16 runs that
code on a CPU, which has no float16 convolutions (gpu_twins.py --dry).

  /usr/bin/python3 bench/python/convnet.py --dataroot DATA --arch resnet18 --batch-size 16 --workers 2 --max-count 320
"""
import argparse
import os

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms

from apex_fp16 import FP16Optimizer, network_to_half
from original_loop import RateLogger, add_init_torch_args, dataloop, init_torch, report


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--arch", default="resnet18")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--image-size", type=int, default=224, help="ours (milarun's --image-size); the original: 224")
    p.add_argument("--bf16", action="store_true", help="bfloat16 autocast on the CPU (milarun's --half there)")
    p.add_argument("--half", action="store_true", help="the original's apex float16 path (CUDA)")
    p.add_argument("--half-dtype", default="float16", choices=["float16", "bfloat16"])
    add_init_torch_args(p)
    a = p.parse_args(argv)

    device = init_torch(a)
    model = models.__dict__[a.arch]().to(device)
    criterion = nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.SGD(model.parameters(), a.lr)
    half = getattr(torch, a.half_dtype)
    if a.half:  # conv_simple.py:60-68: OptimizerAdapter over float32 parameters, then ModelAdapter
        optimizer = FP16Optimizer(optimizer, dynamic_loss_scale=True)
        network_to_half(model, half)
    tf = transforms.Compose([
        transforms.RandomResizedCrop(a.image_size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    train = datasets.ImageFolder(os.path.join(a.dataroot, "ImageNet", "train"), tf)
    loader = torch.utils.data.DataLoader(train, batch_size=a.batch_size, shuffle=True, num_workers=a.workers or 0,
                                         pin_memory=torch.cuda.is_available())
    wrapper = RateLogger(a.max_count, a.sample_duration, sync=None)
    for it, (input, target) in dataloop(loader, wrapper):
        it.set_count(a.batch_size)
        input, target = input.to(device), target.to(device)
        if a.half:
            input = input.to(half)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
            loss = criterion(model(input), target)
        it.log(loss=loss.item())
        optimizer.zero_grad()
        if a.half:
            optimizer.backward(loss)
        else:
            loss.backward()
        optimizer.step()
    extra = {"loss_scale": optimizer.scaler.scale, "skipped_steps": optimizer.scaler.skipped} if a.half else {}
    report(f"convnet {a.arch}", wrapper, batch_size=a.batch_size, **extra)


if __name__ == "__main__":
    main()
