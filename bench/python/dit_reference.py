#!/usr/bin/env python3
"""The dit parity fixture: a Diffusion Transformer written here from its
published definition (Peebles & Xie 2023; facebookresearch/DiT models.py and
diffusion/gaussian_diffusion.py: patch convolution plus a fixed 2-D sin-cos
position embedding, timestep embedder (256 sinusoidal frequencies, then
Linear-SiLU-Linear), label embedder with a null class, adaLN-Zero blocks with
affine-free LayerNorms (eps 1e-6) and tanh GELU, adaLN final layer,
unpatchify; learn_sigma = False; DDPM's linear betas 1e-4 .. 0.02 in float64,
epsilon-prediction MSE), run on the tiny config with a fixed seed under
Debian's python3-torch 1.13 (CPU, float32). Writes tests/fixtures/dit_tiny/:
  index.json    config, hyper-parameters, parameter table (name, shape,
                offset), loss of batch 0, the losses of 10 AdamW steps
  weights.f32   initial parameters, concatenated in table order (little-endian)
  grads.f32     their gradients of batch 0's loss (before clipping)
  out0.f32      the model's output (predicted noise) of batch 0, [B, C, H, W]
  x0.f32        10 batches of B latents, [10, B, C, H, W]
  noise.f32     their noise, [10, B, C, H, W]
  t.i32         their timesteps, [10, B]
  labels.i32    their labels, [10, B]
  drop.i32      their class-dropout draws (1: the null class), [10, B]
  schedule.f64  sqrt(abar) then sqrt(1 - abar), [2, diffusion_steps]
  /usr/bin/python3 bench/python/dit_reference.py [--out tests/fixtures/dit_tiny]
"""
import argparse
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from llm_common import write_fixture

CFG = dict(input_size=8, patch_size=2, in_channels=4, dim=64, depth=2, heads=4, mlp_dim=256, classes=10,
           class_dropout=0.1, frequency_dim=256, diffusion_steps=1000)
B, STEPS = 8, 10
HYPER = dict(lr=1e-4, warmup_steps=10, weight_decay=0.1, grad_clip=1.0, betas=(0.9, 0.95), eps=1e-8)


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


def sincos_1d(dim, pos):
    """[M] positions -> [M, dim]: sin then cos of pos / 10000^(k / (dim/2)), float64."""
    omega = 1.0 / 10000 ** (torch.arange(dim // 2, dtype=torch.float64) / (dim / 2))
    out = pos.to(torch.float64)[:, None] * omega[None]
    return torch.cat([out.sin(), out.cos()], dim=1)


def sincos_2d(dim, grid):
    """MAE's 2-D embedding: the first half encodes the column (w), the second the row (h)."""
    h, w = torch.meshgrid(torch.arange(grid), torch.arange(grid), indexing="ij")
    return torch.cat([sincos_1d(dim // 2, w.reshape(-1)), sincos_1d(dim // 2, h.reshape(-1))], dim=1).float()


def timestep_embedding(t, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        D = c["dim"]
        self.heads = c["heads"]
        self.attn = nn.Module()
        self.attn.qkv = nn.Linear(D, 3 * D)
        self.attn.proj = nn.Linear(D, D)
        self.mlp = nn.Module()
        self.mlp.fc1 = nn.Linear(D, c["mlp_dim"])
        self.mlp.fc2 = nn.Linear(c["mlp_dim"], D)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(D, 6 * D))

    def attention(self, x):
        Bt, S, D = x.shape
        hs = D // self.heads
        qkv = self.attn.qkv(x).reshape(Bt, S, 3, self.heads, hs).permute(2, 0, 3, 1, 4)  # timm's layout
        q, k, v = qkv[0], qkv[1], qkv[2]
        y = ((q @ k.transpose(-2, -1)) * hs ** -0.5).softmax(-1) @ v
        return self.attn.proj(y.transpose(1, 2).reshape(Bt, S, D))

    def forward(self, x, c):
        D = x.shape[-1]
        shift_a, scale_a, gate_a, shift_m, scale_m, gate_m = self.adaLN_modulation(c).chunk(6, dim=1)
        x = x + gate_a.unsqueeze(1) * self.attention(modulate(F.layer_norm(x, (D,), eps=1e-6), shift_a, scale_a))
        h = modulate(F.layer_norm(x, (D,), eps=1e-6), shift_m, scale_m)
        return x + gate_m.unsqueeze(1) * self.mlp.fc2(F.gelu(self.mlp.fc1(h), approximate="tanh"))


class DiT(nn.Module):
    def __init__(self, c):
        super().__init__()
        D, P, C = c["dim"], c["patch_size"], c["in_channels"]
        self.c = c
        self.x_embedder = nn.Module()
        self.x_embedder.proj = nn.Conv2d(C, D, kernel_size=P, stride=P)
        self.t_embedder = nn.Module()
        self.t_embedder.mlp = nn.Sequential(nn.Linear(c["frequency_dim"], D), nn.SiLU(), nn.Linear(D, D))
        self.y_embedder = nn.Module()
        self.y_embedder.embedding_table = nn.Embedding(c["classes"] + 1, D)
        self.register_buffer("pos_embed", sincos_2d(D, c["input_size"] // P).unsqueeze(0))  # fixed
        self.blocks = nn.ModuleList(Block(c) for _ in range(c["depth"]))
        self.final_layer = nn.Module()
        self.final_layer.linear = nn.Linear(D, P * P * C)
        self.final_layer.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(D, 2 * D))
        with torch.no_grad():  # DiT's initialize_weights
            for m in self.modules():
                if isinstance(m, nn.Linear):
                    nn.init.xavier_uniform_(m.weight)
                    m.bias.zero_()
            w = self.x_embedder.proj.weight
            nn.init.xavier_uniform_(w.view(w.shape[0], -1))
            self.x_embedder.proj.bias.zero_()
            self.y_embedder.embedding_table.weight.normal_(0.0, 0.02)
            self.t_embedder.mlp[0].weight.normal_(0.0, 0.02)
            self.t_embedder.mlp[2].weight.normal_(0.0, 0.02)
            for lin in [b.adaLN_modulation[1] for b in self.blocks] + [self.final_layer.adaLN_modulation[1],
                                                                       self.final_layer.linear]:
                lin.weight.zero_()
                lin.bias.zero_()

    def forward(self, x, t, y, drop):
        P, C = self.c["patch_size"], self.c["in_channels"]
        D = self.c["dim"]
        h = self.x_embedder.proj(x).flatten(2).transpose(1, 2) + self.pos_embed
        y = torch.where(drop.bool(), torch.full_like(y, self.c["classes"]), y)  # token_drop(force_drop_ids)
        c = self.t_embedder.mlp(timestep_embedding(t, self.c["frequency_dim"])) + self.y_embedder.embedding_table(y)
        for b in self.blocks:
            h = b(h, c)
        shift, scale = self.final_layer.adaLN_modulation(c).chunk(2, dim=1)
        h = self.final_layer.linear(modulate(F.layer_norm(h, (D,), eps=1e-6), shift, scale))
        g = int(h.shape[1] ** 0.5)
        h = h.reshape(h.shape[0], g, g, P, P, C)
        return torch.einsum("nhwpqc->nchpwq", h).reshape(h.shape[0], C, g * P, g * P)


def schedule(steps):
    """DiT's linear betas (get_named_beta_schedule) and the q_sample coefficients, float64."""
    scale = 1000 / steps
    betas = np.linspace(scale * 0.0001, scale * 0.02, steps, dtype=np.float64)
    abar = np.cumprod(1.0 - betas, axis=0)
    return torch.from_numpy(np.sqrt(abar)), torch.from_numpy(np.sqrt(1.0 - abar))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "../../tests/fixtures/dit_tiny"))
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(1234)
    torch.set_num_threads(1)
    model = DiT(CFG)
    # adaLN-Zero and the zero final layer would make every gradient but the
    # final Linear's 0 at step 0: give the zero-initialised Linears small
    # weights here so that every layer's gradient is checked.
    with torch.no_grad():
        for lin in [b.adaLN_modulation[1] for b in model.blocks] + [model.final_layer.adaLN_modulation[1],
                                                                    model.final_layer.linear]:
            lin.weight.normal_(0.0, 0.02)
            lin.bias.normal_(0.0, 0.02)
    g = torch.Generator().manual_seed(7)
    H, C, T = CFG["input_size"], CFG["in_channels"], CFG["diffusion_steps"]
    x0 = torch.randn(STEPS, B, C, H, H, generator=g)
    noise = torch.randn(STEPS, B, C, H, H, generator=g)
    t = torch.randint(0, T, (STEPS, B), generator=g)
    labels = torch.randint(0, CFG["classes"], (STEPS, B), generator=g)
    drop = (torch.rand(STEPS, B, generator=g) < CFG["class_dropout"]).int()
    sa, s1a = schedule(T)

    def loss_at(k):
        xt = sa[t[k]].float().view(B, 1, 1, 1) * x0[k] + s1a[t[k]].float().view(B, 1, 1, 1) * noise[k]
        out = model(xt, t[k], labels[k], drop[k])
        return F.mse_loss(out, noise[k]), out

    def forward0():
        loss, out = loss_at(0)
        return loss, {"x0.f32": x0.numpy().astype("<f4"), "noise.f32": noise.numpy().astype("<f4"),
                      "t.i32": t.numpy().astype("<i4"), "labels.i32": labels.numpy().astype("<i4"),
                      "drop.i32": drop.numpy().astype("<i4"), "out0.f32": out.detach().numpy().astype("<f4"),
                      "schedule.f64": torch.stack([sa, s1a]).numpy().astype("<f8")}

    write_fixture(out, model, forward0, lambda k: loss_at(k)[0], STEPS, HYPER, dict(config=CFG, batch_size=B))


if __name__ == "__main__":
    main()
