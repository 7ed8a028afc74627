#!/usr/bin/env python3
"""Eager twin of `milarun run scaling`, following the original's
milarun/models/scaling/micro_bench.py: torchvision.models.alexnet() (its own
initialisation; micro_bench's weight_init is never applied), one fixed
randn(batch, 3, 224, 224) input and all-zero targets, cross_entropy,
SGD(lr 0.01, momentum 0.9), wrapped in DistributedDataParallel (bucketed
gradient all-reduce overlapped with backward; Gloo on CPU where the original
used NCCL on CUDA), `with wrapper(count=batch_size)` around each step, no
host reads. --world-size W starts W ranks on this host (torch.multiprocessing);
each prints its own line; torch threads per rank = --workers or 1.

  /usr/bin/python3 bench/python/scaling.py --batch-size 16 --world-size 2 --workers 1 --max-count 320
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torchvision

from original_loop import RateLogger, add_init_torch_args, init_torch, report


def rank_main(rank, a):
    init_torch(a)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{a.port}", rank=rank, world_size=a.world_size)
    network = torch.nn.parallel.DistributedDataParallel(torchvision.models.alexnet())
    inp = torch.randn(a.batch_size, 3, a.image_size, a.image_size)
    target = torch.randint(0, 1, size=(a.batch_size,))
    optimizer = torch.optim.SGD(network.parameters(), lr=0.01, momentum=0.9)
    wrapper = RateLogger(a.max_count, a.sample_duration)
    while not wrapper.done():
        with wrapper.block(count=a.batch_size) as it:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(network(inp), target)
            loss.backward()
            optimizer.step()
            if rank <= 0:
                it.log(world_size=a.world_size)
    report(f"scaling rank {rank}", wrapper, batch_size=a.batch_size)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", help="unused (no data), accepted like the other twins")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--image-size", type=int, default=224, help="ours (milarun's --image-size); the original: 224")
    p.add_argument("--world-size", type=int, default=1)
    p.add_argument("--port", type=int, default=29533)
    add_init_torch_args(p)
    a = p.parse_args()
    mp.spawn(rank_main, args=(a,), nprocs=a.world_size)


if __name__ == "__main__":
    main()
