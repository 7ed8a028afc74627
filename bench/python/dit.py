#!/usr/bin/env python3
"""dit in PyTorch Python eager, the twin of `milarun run dit`.

The model of dit_reference.py (DiT's init: adaLN-Zero, zero final layer) and
the workload's step (AdamW 1e-4, betas 0.9/0.95, wd 0.1 on dim >= 2, warm-up
10, clip 1.0, the loss and the norm read each step) on a pool of
--pool-batches batches of latents x0 ~ N(0, 1) with uniform labels, made on
the device and taken in turn; per step, on the device: t ~ U{0 .. T-1},
noise ~ N(0, 1), the class dropout draw, x_t from DDPM's linear schedule and
MSE(model(x_t, t, y), noise). On CUDA: bf16 autocast with float32
parameters, and on torch 2.x the attention through
scaled_dot_product_attention, as the workload. Prints images/s over --steps
timed steps after --warmup steps.
  /usr/bin/python3 bench/python/dit.py --threads 2                 (tiny config, CPU)
  python3 bench/python/dit.py --device cuda --full                 (DiT-B/2, 32x32x4 latents, B 256)
"""
import math

import torch
import torch.nn.functional as F

import dit_reference as ref
from llm_common import timed_steps, twin_arguments

FULL = dict(input_size=32, patch_size=2, in_channels=4, dim=768, depth=12, heads=12, mlp_dim=3072, classes=1000,
            class_dropout=0.1, frequency_dim=256, diffusion_steps=1000)


def sdpa_attention(self, x):
    Bt, S, D = x.shape
    qkv = self.attn.qkv(x).reshape(Bt, S, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
    y = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2])
    return self.attn.proj(y.transpose(1, 2).reshape(Bt, S, D))


def timestep_embedding(t, dim, max_period=10000):
    """The reference's, with its frequencies on t's device (as the workload)."""
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


def main():
    a = twin_arguments("DiT-B/2 at B 256 (else the tiny config, B 8)", tokens=False)
    cfg, B = (FULL, 256) if a.full else (ref.CFG, ref.B)
    dev = torch.device(a.device)
    if hasattr(F, "scaled_dot_product_attention"):
        ref.Block.attention = sdpa_attention
    ref.timestep_embedding = timestep_embedding
    model = ref.DiT(cfg).to(dev)
    H, C, T, K = cfg["input_size"], cfg["in_channels"], cfg["diffusion_steps"], cfg["classes"]
    with torch.no_grad():
        latents = torch.randn(a.pool_batches * B, C, H, H, device=dev)
        labels = torch.randint(0, K, (a.pool_batches * B,), device=dev)
    sa, s1a = (s.to(dev) for s in ref.schedule(T))  # float64, as the workload's DdpmSchedule
    cuda = dev.type == "cuda"

    def loss_at(step):
        at = (step % a.pool_batches) * B
        x0, y = latents[at:at + B], labels[at:at + B]
        t = torch.randint(0, T, (B,), device=dev)
        noise = torch.randn_like(x0)
        drop = torch.rand(B, device=dev) < cfg["class_dropout"]
        xt = sa[t].float().view(B, 1, 1, 1) * x0 + s1a[t].float().view(B, 1, 1, 1) * noise
        return F.mse_loss(model(xt, t, y, drop), noise)

    dt, loss = timed_steps(model, ref.HYPER, loss_at, a.warmup, a.steps, cuda)
    print(f"dit eager: {a.steps * B / dt:.1f} images/s ({a.steps} steps, {a.device}, {a.threads} threads, "
          f"torch {torch.__version__}, loss {loss:.3f})")


if __name__ == "__main__":
    main()
