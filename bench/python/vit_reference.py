#!/usr/bin/env python3
"""The vit parity fixture: a Vision Transformer written here from its published
definition (Dosovitskiy et al. 2021; torchvision's vision_transformer.py
layout and initialisation: patch convolution, class token, learned position
embedding, pre-LayerNorm blocks with eps 1e-6, exact GELU, zero head), run on
the tiny config with a fixed seed under Debian's python3-torch 1.13 (CPU,
float32). Writes tests/fixtures/vit_tiny/:
  index.json   config, hyper-parameters, parameter table (name, shape, offset),
               loss of batch 0, the losses of 10 AdamW steps
  weights.f32  initial parameters, concatenated in table order (little-endian)
  grads.f32    their gradients of batch 0's loss (before clipping)
  logits0.f32  logits of batch 0, [B, classes]
  images.f32   10 batches of B normalised images, [10, B, 3, H, W]
  labels.i32   their labels, [10, B]
  /usr/bin/python3 bench/python/vit_reference.py [--out tests/fixtures/vit_tiny]
"""
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from llm_common import write_fixture

CFG = dict(image_size=32, patch_size=8, dim=64, depth=2, heads=4, mlp_dim=256, classes=10)
B, STEPS = 8, 10
HYPER = dict(lr=2.5e-4, warmup_steps=10, weight_decay=0.1, grad_clip=1.0, betas=(0.9, 0.95), eps=1e-8)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        D = c["dim"]
        self.heads = c["heads"]
        self.ln_1 = nn.LayerNorm(D, eps=1e-6)
        self.attn = nn.Module()
        self.attn.qkv = nn.Linear(D, 3 * D)
        self.attn.proj = nn.Linear(D, D)
        self.ln_2 = nn.LayerNorm(D, eps=1e-6)
        self.mlp = nn.Module()
        self.mlp.fc1 = nn.Linear(D, c["mlp_dim"])
        self.mlp.fc2 = nn.Linear(c["mlp_dim"], D)
        with torch.no_grad():  # nn.MultiheadAttention's in_proj / out_proj, torchvision's MLPBlock
            nn.init.xavier_uniform_(self.attn.qkv.weight)
            self.attn.qkv.bias.zero_()
            self.attn.proj.weight.uniform_(-1 / math.sqrt(D), 1 / math.sqrt(D))
            self.attn.proj.bias.zero_()
            for fc in (self.mlp.fc1, self.mlp.fc2):
                nn.init.xavier_uniform_(fc.weight)
                fc.bias.normal_(0.0, 1e-6)

    def attention(self, x):
        Bt, S, D = x.shape
        hs = D // self.heads
        q, k, v = self.attn.qkv(x).split(D, dim=2)
        q, k, v = (t.view(Bt, S, self.heads, hs).transpose(1, 2) for t in (q, k, v))
        y = ((q @ k.transpose(-2, -1)) / math.sqrt(hs)).softmax(-1) @ v
        return self.attn.proj(y.transpose(1, 2).reshape(Bt, S, D))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp.fc2(F.gelu(self.mlp.fc1(self.ln_2(x))))


class ViT(nn.Module):
    def __init__(self, c):
        super().__init__()
        D, P = c["dim"], c["patch_size"]
        S = 1 + (c["image_size"] // P) ** 2
        self.patch_embed = nn.Conv2d(3, D, kernel_size=P, stride=P)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, D))
        self.pos_embed = nn.Parameter(torch.empty(1, S, D).normal_(0.0, 0.02))
        self.blocks = nn.ModuleList(Block(c) for _ in range(c["depth"]))
        self.ln = nn.LayerNorm(D, eps=1e-6)
        self.head = nn.Linear(D, c["classes"])
        with torch.no_grad():
            nn.init.trunc_normal_(self.patch_embed.weight, std=math.sqrt(1 / (3 * P * P)))
            self.patch_embed.bias.zero_()
            self.head.weight.zero_()
            self.head.bias.zero_()

    def forward(self, images):
        x = self.patch_embed(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x)[:, 0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "../../tests/fixtures/vit_tiny"))
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(1234)
    torch.set_num_threads(1)
    model = ViT(CFG)
    # The head starts at 0, so batch 0's loss would be ln(classes) whatever the
    # rest: give it small weights here so that the gradients of every layer
    # are checked through a non-trivial head.
    with torch.no_grad():
        model.head.weight.normal_(0.0, 0.02)
    g = torch.Generator().manual_seed(7)
    H = CFG["image_size"]
    labels = torch.randint(0, CFG["classes"], (STEPS, B), generator=g)
    templates = torch.rand(CFG["classes"], 3, H, H, generator=g)
    images = 0.6 * templates[labels] + 0.4 * torch.rand(STEPS, B, 3, H, H, generator=g)
    images = (images - 0.45) / 0.225

    def forward0():
        logits = model(images[0])
        return F.cross_entropy(logits, labels[0]), {"images.f32": images.numpy().astype("<f4"),
                                                    "labels.i32": labels.numpy().astype("<i4"),
                                                    "logits0.f32": logits.detach().numpy().astype("<f4")}

    write_fixture(out, model, forward0, lambda k: F.cross_entropy(model(images[k]), labels[k]), STEPS, HYPER,
                  dict(config=CFG, batch_size=B))


if __name__ == "__main__":
    main()
