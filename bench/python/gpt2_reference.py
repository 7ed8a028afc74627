#!/usr/bin/env python3
"""The gpt2 parity fixture: GPT-2 written here from its published definition
(Radford et al. 2019; llm.c's train_gpt2.py conventions: pre-LayerNorm blocks,
fused qkv, tanh GELU, tied head, padded vocabulary with the loss over the real
one), run on the tiny config with a fixed seed under Debian's python3-torch
1.13 (CPU, float32). Writes tests/fixtures/gpt2_tiny/:
  the files of bench/python/lm_fixture.py (logits0.f32 over the padded vocabulary)
  /usr/bin/python3 bench/python/gpt2_reference.py [--out tests/fixtures/gpt2_tiny]
"""
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from lm_fixture import write_fixture

CFG = dict(n_layer=2, n_embd=64, n_head=4, block_size=64, vocab_size=256, padded_vocab_size=256)
B, STEPS = 4, 10


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "../../tests/fixtures/gpt2_tiny"))
    out = ap.parse_args().out
    torch.manual_seed(1234)
    torch.set_num_threads(1)
    model = GPT(CFG)
    write_fixture(out, model, CFG, B, STEPS)


if __name__ == "__main__":
    main()
