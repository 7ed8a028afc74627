#!/usr/bin/env python3
"""The gpt2 parity fixture: GPT-2 written here from its published definition
(Radford et al. 2019; llm.c's train_gpt2.py conventions: pre-LayerNorm blocks,
fused qkv, tanh GELU, tied head, padded vocabulary with the loss over the real
one), run on the tiny config with a fixed seed under Debian's python3-torch
1.13 (CPU, float32). Writes tests/fixtures/gpt2_tiny/:
  index.json   config, hyper-parameters, parameter table (name, shape, offset),
               loss of batch 0, the losses of 10 AdamW steps
  weights.f32  initial parameters, concatenated in table order (little-endian)
  grads.f32    their gradients of batch 0's loss (before clipping)
  logits0.f32  logits of batch 0's first sequence, [T, padded vocab]
  tokens.i32   10*B*T+1 tokens; batch k = tokens[k*B*T : k*B*T + B*T + 1]
  /usr/bin/python3 bench/python/gpt2_reference.py [--out tests/fixtures/gpt2_tiny]
"""
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from llm_common import write_fixture

CFG = dict(n_layer=2, n_embd=64, n_head=4, block_size=64, vocab_size=256, padded_vocab_size=256)
B, STEPS = 4, 10
HYPER = dict(lr=6e-4, warmup_steps=10, weight_decay=0.1, grad_clip=1.0, betas=(0.9, 0.95), eps=1e-8)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        C = c["n_embd"]
        self.n_head = c["n_head"]
        self.ln_1 = nn.LayerNorm(C)
        self.attn = nn.Module()
        self.attn.c_attn = nn.Linear(C, 3 * C)
        self.attn.c_proj = nn.Linear(C, C)
        self.ln_2 = nn.LayerNorm(C)
        self.mlp = nn.Module()
        self.mlp.c_fc = nn.Linear(C, 4 * C)
        self.mlp.c_proj = nn.Linear(4 * C, C)

    def attention(self, x):
        Bt, T, C = x.shape
        hs = C // self.n_head
        q, k, v = self.attn.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(Bt, T, self.n_head, hs).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        future = torch.ones(T, T, dtype=torch.bool).triu(1)
        y = scores.masked_fill(future, float("-inf")).softmax(-1) @ v
        return self.attn.c_proj(y.transpose(1, 2).reshape(Bt, T, C))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.wte = nn.Embedding(c["padded_vocab_size"], c["n_embd"])
        self.wpe = nn.Embedding(c["block_size"], c["n_embd"])
        self.h = nn.ModuleList(Block(c) for _ in range(c["n_layer"]))
        self.ln_f = nn.LayerNorm(c["n_embd"])
        with torch.no_grad():  # N(0, 0.02); residual projections 0.02/sqrt(2L); biases 0; padded rows 0
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    p.zero_()
                elif p.dim() == 2:
                    std = 0.02 / math.sqrt(2 * c["n_layer"]) if name.endswith("c_proj.weight") else 0.02
                    p.normal_(0.0, std)
            self.wte.weight[c["vocab_size"]:].zero_()

    def forward(self, idx):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
        for b in self.h:
            x = b(x)
        return F.linear(self.ln_f(x), self.wte.weight)

    def loss(self, logits, targets):
        V = self.c["vocab_size"]
        return F.cross_entropy(logits[..., :V].reshape(-1, V), targets.reshape(-1))


def batch(tokens, k):
    n = B * CFG["block_size"]
    buf = tokens[k * n: k * n + n + 1]
    return buf[:-1].view(B, -1), buf[1:].view(B, -1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "../../tests/fixtures/gpt2_tiny"))
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(1234)
    torch.set_num_threads(1)
    model = GPT(CFG)
    # A learnable stream: each token mostly followed by (3 t + 1) mod 255, EOT 255 now and then.
    g = torch.Generator().manual_seed(7)
    n = STEPS * B * CFG["block_size"] + 1
    noise = torch.randint(0, 255, (n,), generator=g)
    keep = torch.rand(n, generator=g) < 0.7
    tokens = torch.empty(n, dtype=torch.long)
    tokens[0] = 255
    for i in range(1, n):
        tokens[i] = (3 * tokens[i - 1] + 1) % 255 if keep[i] else noise[i]

    def forward0():
        x, y = batch(tokens, 0)
        logits = model(x)
        return model.loss(logits, y), {"tokens.i32": tokens.numpy().astype("<i4"),
                                       "logits0.f32": logits[0].detach().numpy().astype("<f4")}

    def loss_at(k):
        x, y = batch(tokens, k)
        return model.loss(model(x), y)

    write_fixture(out, model, forward0, loss_at, STEPS, HYPER, dict(config=CFG, batch_size=B))


if __name__ == "__main__":
    main()
