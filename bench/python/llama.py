#!/usr/bin/env python3
"""llama in PyTorch Python eager, the twin of `milarun run llama`.

The model of llama_reference.py (init N(0, 0.02), RMSNorm gains 1), the
workload's step (AdamW 6e-4, betas 0.9/0.95, wd 0.1 on 2-D, warm-up 10, clip
1.0, loss and norm read each step) on the same llm.c shards (uint16 or
Llama 3's uint32 tokens, read by the header's magic); prints tokens/s over
--steps timed steps after --warmup steps. On CUDA: bf16 autocast with
float32 parameters, RoPE in q's compute dtype and, on torch 2.x, the
attention (k/v heads repeated) through scaled_dot_product_attention(
is_causal=True), as the workload.
  /usr/bin/python3 bench/python/llama.py -d DATAROOT --threads 2   (tiny config, llmc_tiny256)
  python3 bench/python/llama.py -d DATAROOT --device cuda --full   (Llama-3.2-1B shape, B 8, T 2048, llmc_llama3)
"""
import contextlib

import torch
import torch.nn.functional as F

import llama_reference as ref
from llm_common import timed_steps, token_loss, twin_arguments
from lm_fixture import HYPER

LLAMA_1B = dict(n_layer=16, n_embd=2048, n_head=32, n_kv_head=8, ffn_hidden=8192, block_size=2048, vocab_size=128256,
                norm_eps=1e-5, rope_theta=500000.0)


def sdpa_attention(self, x, cos, sin):
    Bt, T, C = x.shape
    q, k, v = self.heads(x, cos, sin)
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return self.self_attn.o_proj(y.transpose(1, 2).reshape(Bt, T, C))


reference_rope = ref.Llama.rope


def device_rope(self, T):
    """The reference's float32 tables, built once on the model's device (the workload caches them too)."""
    if getattr(self, "rope_tables", None) is None:
        dev = self.embed_tokens.weight.device
        self.rope_tables = tuple(t.to(dev) for t in reference_rope(self, self.c["block_size"]))
    return self.rope_tables[0][:T], self.rope_tables[1][:T]


def main():
    a = twin_arguments("Llama-3.2-1B shape at B 8, T 2048 on llmc_llama3 (else the tiny config, B 4)", tokens=True)
    cfg, B, data = (LLAMA_1B, 8, "llmc_llama3") if a.full else (ref.CFG, ref.B, "llmc_tiny256")
    T = cfg["block_size"]
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if hasattr(F, "scaled_dot_product_attention"):
        ref.Block.attention = sdpa_attention
    ref.Llama.rope = device_rope
    # 1.2 B parameters: initialised on the device where torch can (2.x), not on the host.
    with dev if cuda and hasattr(torch.device, "__enter__") else contextlib.nullcontext():
        model = ref.Llama(cfg).to(dev)
    loss_at = token_loss(model, a.dataroot, data, B, T, dev)
    dt, loss = timed_steps(model, HYPER, loss_at, a.warmup, a.steps, cuda)
    print(f"llama eager: {a.steps * B * T / dt:.0f} tokens/s ({a.steps} steps, {a.device}, {a.threads} threads, "
          f"torch {torch.__version__}, loss {loss:.3f})")


if __name__ == "__main__":
    main()
