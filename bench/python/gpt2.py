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
import torch
import torch.nn.functional as F

import gpt2_reference as ref
from llm_common import timed_steps, token_loss, twin_arguments
from lm_fixture import HYPER

D12 = dict(n_layer=12, n_embd=768, n_head=12, block_size=1024, vocab_size=50257, padded_vocab_size=50304)


def sdpa_attention(self, x):
    Bt, T, C = x.shape
    q, k, v = self.attn.c_attn(x).split(C, dim=2)
    q, k, v = (t.view(Bt, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return self.attn.c_proj(y.transpose(1, 2).reshape(Bt, T, C))


def main():
    a = twin_arguments("d12 at B 64 on llmc_gpt2 (else the tiny config, B 4)", tokens=True)
    cfg, B, data = (D12, 64, "llmc_gpt2") if a.full else (ref.CFG, ref.B, "llmc_tiny256")
    T = cfg["block_size"]
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if hasattr(F, "scaled_dot_product_attention"):
        ref.Block.attention = sdpa_attention
    model = ref.GPT(cfg).to(dev)
    loss_at = token_loss(model, a.dataroot, data, B, T, dev)
    dt, loss = timed_steps(model, HYPER, loss_at, a.warmup, a.steps, cuda)
    print(f"gpt2 eager: {a.steps * B * T / dt:.0f} tokens/s ({a.steps} steps, {a.device}, {a.threads} threads, "
          f"torch {torch.__version__}, loss {loss:.3f})")


if __name__ == "__main__":
    main()
