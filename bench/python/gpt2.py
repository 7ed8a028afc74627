#!/usr/bin/env python3
"""gpt2 in PyTorch Python eager, for comparing with `milarun run gpt2` on the CPU.

The model of gpt2_reference.py, the workload's step (AdamW 0.9/0.95 wd 0.1 on
2-D, warm-up 10, clip 1.0, loss and norm read each step) on the same llm.c
shards; prints tokens/s over --steps timed steps after --warmup steps.
  /usr/bin/python3 bench/python/gpt2.py -d DATAROOT --threads 2   (tiny config, llmc_tiny256)
"""
import argparse
import glob
import os
import time

import numpy as np
import torch

import gpt2_reference as ref


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-d", "--dataroot", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--steps", type=int, default=200)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    cfg, B = ref.CFG, ref.B
    T = cfg["block_size"]
    shard = sorted(glob.glob(os.path.join(a.dataroot, "llmc_tiny256", "*_train_*.bin")))[0]
    header = np.fromfile(shard, dtype="<i4", count=256)
    tokens = torch.from_numpy(np.fromfile(shard, dtype="<u2", offset=1024, count=int(header[2])).astype(np.int64))
    model = ref.GPT(cfg)
    params = list(model.parameters())
    opt = torch.optim.AdamW([{"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
                             {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}],
                            lr=6e-4, betas=(0.9, 0.95), eps=1e-8)
    pos, n = 0, B * T
    for step in range(a.warmup + a.steps):
        if step == a.warmup:
            t0 = time.perf_counter()
        buf = tokens[pos:pos + n + 1]
        pos = pos + n if pos + 2 * n + 1 <= len(tokens) else 0
        x, y = buf[:-1].view(B, T), buf[1:].view(B, T)
        opt.zero_grad(set_to_none=True)
        loss = model.loss(model(x), y)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
        for g in opt.param_groups:
            g["lr"] = 6e-4 * min(1.0, (step + 1) / 10)
        opt.step()
        loss.item(), norm.item()
    dt = time.perf_counter() - t0
    print(f"gpt2 eager: {a.steps * n / dt:.0f} tokens/s ({a.steps} steps, {a.threads} threads, loss {loss.item():.3f})")


if __name__ == "__main__":
    main()
