#!/usr/bin/env python3
"""gpt2 in PyTorch Python eager, the twin of `milarun run gpt2`.

The model of gpt2_reference.py, the workload's step (AdamW 0.9/0.95 wd 0.1 on
2-D, warm-up 10, clip 1.0, loss and norm read each step) on the same llm.c
shards; prints tokens/s over --steps timed steps after --warmup steps. On
CUDA: bf16 autocast with float32 parameters and, on torch 2.x, the attention
through scaled_dot_product_attention(is_causal=True), as the workload.
  /usr/bin/python3 bench/python/gpt2.py -d DATAROOT --threads 2   (tiny config, llmc_tiny256)
  python3 bench/python/gpt2.py -d DATAROOT --device cuda --full   (d12, B 64, T 1024, llmc_gpt2)
"""
import argparse
import glob
import os

import numpy as np
import torch
import torch.nn.functional as F

import gpt2_reference as ref
from llm_common import timed_steps
from lm_fixture import HYPER

D12 = dict(n_layer=12, n_embd=768, n_head=12, block_size=1024, vocab_size=50257, padded_vocab_size=50304)


def sdpa_attention(self, x):
    Bt, T, C = x.shape
    q, k, v = self.attn.c_attn(x).split(C, dim=2)
    q, k, v = (t.view(Bt, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return self.attn.c_proj(y.transpose(1, 2).reshape(Bt, T, C))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-d", "--dataroot", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--full", action="store_true", help="d12 at B 64 on llmc_gpt2 (else the tiny config, B 4)")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--steps", type=int, default=200)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1234)
    cfg, B, data = (D12, 64, "llmc_gpt2") if a.full else (ref.CFG, ref.B, "llmc_tiny256")
    T = cfg["block_size"]
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if hasattr(F, "scaled_dot_product_attention"):
        ref.Block.attention = sdpa_attention
    shard = sorted(glob.glob(os.path.join(a.dataroot, data, "*_train_*.bin")))[0]
    header = np.fromfile(shard, dtype="<i4", count=256)
    tokens = torch.from_numpy(np.fromfile(shard, dtype="<u2", offset=1024, count=int(header[2])).astype(np.int64))
    model = ref.GPT(cfg).to(dev)
    n, pos = B * T, [0]

    def loss_at(step):
        at = pos[0]
        pos[0] = at + n if at + 2 * n + 1 <= len(tokens) else 0
        buf = tokens[at:at + n + 1]
        x, y = buf[:-1].view(B, T).to(dev, non_blocking=True), buf[1:].view(B, T).to(dev, non_blocking=True)
        return model.loss(model(x), y)

    dt, loss = timed_steps(model, HYPER, loss_at, a.warmup, a.steps, cuda)
    print(f"gpt2 eager: {a.steps * n / dt:.0f} tokens/s ({a.steps} steps, {a.device}, {a.threads} threads, "
          f"torch {torch.__version__}, loss {loss:.3f})")


if __name__ == "__main__":
    main()
