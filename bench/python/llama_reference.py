#!/usr/bin/env python3
"""The llama parity fixture: a Llama 3 decoder written here from its published
definition (Meta's Llama 3 model.py and HF transformers' LlamaForCausalLM
conventions: pre-RMSNorm blocks, rotate-half RoPE with theta 500000, grouped-
query attention with k/v heads repeated to the query heads, SwiGLU
down(silu(gate(x)) * up(x)), no biases, lm_head tied to the embedding; init
N(0, 0.02) for every Linear and Embedding weight, RMSNorm gains 1), run on the
tiny config with a fixed seed under Debian's python3-torch 1.13 (CPU,
float32). Writes tests/fixtures/llama_tiny/:
  the files of bench/python/lm_fixture.py (logits0.f32 over the vocabulary)
  /usr/bin/python3 bench/python/llama_reference.py [--out tests/fixtures/llama_tiny]
"""
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from lm_fixture import write_fixture

CFG = dict(n_layer=2, n_embd=64, n_head=4, n_kv_head=2, ffn_hidden=192, block_size=64, vocab_size=256,
           norm_eps=1e-5, rope_theta=500000.0)
B, STEPS = 4, 10


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        xf = x.float()
        return self.weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        C, hs = c["n_embd"], c["n_embd"] // c["n_head"]
        self.n_head, self.n_kv_head, self.hs = c["n_head"], c["n_kv_head"], hs
        self.input_layernorm = RMSNorm(C, c["norm_eps"])
        self.self_attn = nn.Module()
        self.self_attn.q_proj = nn.Linear(C, self.n_head * hs, bias=False)
        self.self_attn.k_proj = nn.Linear(C, self.n_kv_head * hs, bias=False)
        self.self_attn.v_proj = nn.Linear(C, self.n_kv_head * hs, bias=False)
        self.self_attn.o_proj = nn.Linear(self.n_head * hs, C, bias=False)
        self.post_attention_layernorm = RMSNorm(C, c["norm_eps"])
        self.mlp = nn.Module()
        self.mlp.gate_proj = nn.Linear(C, c["ffn_hidden"], bias=False)
        self.mlp.up_proj = nn.Linear(C, c["ffn_hidden"], bias=False)
        self.mlp.down_proj = nn.Linear(c["ffn_hidden"], C, bias=False)

    def heads(self, x, cos, sin):
        """q, k, v as (B, n_head, T, hs): RoPE applied in q's dtype (HF's
        apply_rotary_pos_emb), the k/v heads repeated (repeat_kv)."""
        Bt, T, C = x.shape
        a = self.self_attn
        q = a.q_proj(x).view(Bt, T, self.n_head, self.hs).transpose(1, 2)
        k = a.k_proj(x).view(Bt, T, self.n_kv_head, self.hs).transpose(1, 2)
        v = a.v_proj(x).view(Bt, T, self.n_kv_head, self.hs).transpose(1, 2)
        cos, sin = cos.to(q.dtype), sin.to(q.dtype)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.n_head // self.n_kv_head  # repeat_kv: k/v head j serves query heads j*rep .. j*rep+rep-1
        k = k[:, :, None].expand(Bt, self.n_kv_head, rep, T, self.hs).reshape(Bt, self.n_head, T, self.hs)
        v = v[:, :, None].expand(Bt, self.n_kv_head, rep, T, self.hs).reshape(Bt, self.n_head, T, self.hs)
        return q, k, v

    def attention(self, x, cos, sin):
        Bt, T, C = x.shape
        q, k, v = self.heads(x, cos, sin)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.hs)
        future = torch.ones(T, T, dtype=torch.bool).triu(1)
        y = scores.masked_fill(future, float("-inf")).softmax(-1) @ v
        return self.self_attn.o_proj(y.transpose(1, 2).reshape(Bt, T, C))

    def forward(self, x, cos, sin):
        h = x + self.attention(self.input_layernorm(x), cos, sin)
        n = self.post_attention_layernorm(h)
        return h + self.mlp.down_proj(F.silu(self.mlp.gate_proj(n)) * self.mlp.up_proj(n))


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["n_embd"])
        self.layers = nn.ModuleList(Block(c) for _ in range(c["n_layer"]))
        self.norm = RMSNorm(c["n_embd"], c["norm_eps"])
        with torch.no_grad():  # HF _init_weights: Linear and Embedding N(0, initializer_range); RMSNorm 1
            for name, p in self.named_parameters():
                if p.dim() == 2:
                    p.normal_(0.0, 0.02)

    def rope(self, T):
        hs = self.c["n_embd"] // self.c["n_head"]
        inv_freq = 1.0 / (self.c["rope_theta"] ** (torch.arange(0, hs, 2).float() / hs))
        angles = torch.outer(torch.arange(self.c["block_size"]).float(), inv_freq)
        emb = torch.cat((angles, angles), dim=-1)
        return emb.cos()[:T], emb.sin()[:T]

    def forward(self, idx):
        cos, sin = self.rope(idx.shape[1])
        x = self.embed_tokens(idx)
        for b in self.layers:
            x = b(x, cos, sin)
        return F.linear(self.norm(x), self.embed_tokens.weight)

    def loss(self, logits, targets):
        V = self.c["vocab_size"]
        return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "../../tests/fixtures/llama_tiny"))
    out = ap.parse_args().out
    torch.manual_seed(1234)
    torch.set_num_threads(1)
    model = Llama(CFG)
    write_fixture(out, model, CFG, B, STEPS)


if __name__ == "__main__":
    main()
