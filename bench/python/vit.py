#!/usr/bin/env python3
"""vit in PyTorch Python eager, the twin of `milarun run vit`.

The model of vit_reference.py and the workload's step (AdamW 2.5e-4, betas
0.9/0.95, wd 0.1 on dim >= 2, warm-up 10, clip 1.0, the loss and the norm
read each step) on a pool of --pool-batches batches of images generated on
the device (class templates + noise, normalised), taken in turn. On CUDA:
bf16 autocast with float32 parameters, and on torch 2.x the attention through
scaled_dot_product_attention, as the workload. Prints images/s over --steps
timed steps after --warmup steps.
  /usr/bin/python3 bench/python/vit.py --threads 2                 (tiny config, CPU)
  python3 bench/python/vit.py --device cuda --full                 (ViT-B/16, B 256)
"""
import math

import torch
import torch.nn.functional as F

import vit_reference as ref
from llm_common import timed_steps, twin_arguments

FULL = dict(image_size=224, patch_size=16, dim=768, depth=12, heads=12, mlp_dim=3072, classes=1000)


def sdpa_attention(self, x):
    Bt, S, D = x.shape
    q, k, v = self.attn.qkv(x).split(D, dim=2)
    q, k, v = (t.view(Bt, S, self.heads, D // self.heads).transpose(1, 2) for t in (q, k, v))
    y = F.scaled_dot_product_attention(q, k, v)
    return self.attn.proj(y.transpose(1, 2).reshape(Bt, S, D))


def main():
    a = twin_arguments("ViT-B/16 at B 256 (else the tiny config, B 8)", tokens=False)
    cfg, B = (FULL, 256) if a.full else (ref.CFG, ref.B)
    dev = torch.device(a.device)
    if hasattr(F, "scaled_dot_product_attention"):
        ref.Block.attention = sdpa_attention
    model = ref.ViT(cfg).to(dev)
    H, C = cfg["image_size"], cfg["classes"]
    with torch.no_grad():
        n = a.pool_batches * B
        labels = torch.randperm(n, device=dev) % C
        grid = max(1, H // cfg["patch_size"] // 2)
        templates = F.interpolate(torch.rand(C, 3, grid, grid, device=dev), size=(H, H), mode="nearest")
        images = 0.6 * templates[labels] + 0.4 * torch.rand(n, 3, H, H, device=dev)
        mean = torch.tensor([0.485, 0.456, 0.406], device=dev).view(1, 3, 1, 1)
        std = torch.tensor([0.229, 0.224, 0.225], device=dev).view(1, 3, 1, 1)
        images = ((images - mean) / std).contiguous()
    cuda = dev.type == "cuda"

    def loss_at(step):
        at = (step % a.pool_batches) * B
        return F.cross_entropy(model(images[at:at + B]), labels[at:at + B])

    dt, loss = timed_steps(model, ref.HYPER, loss_at, a.warmup, a.steps, cuda)
    print(f"vit eager: {a.steps * B / dt:.1f} images/s ({a.steps} steps, {a.device}, {a.threads} threads, "
          f"torch {torch.__version__}, loss {loss:.3f}, ln C {math.log(C):.3f})")


if __name__ == "__main__":
    main()
