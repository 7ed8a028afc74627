"""What the parity references of the 2026 language models share
(bench/python/gpt2_reference.py, llama_reference.py): the token stream, the
fixture files and the 10 AdamW steps with llm.c's loop (set_to_none,
clip 1.0, linear warm-up, AdamW with weight decay on 2-D parameters only).
Files written to OUT (float32 / int32 little-endian):
  index.json   config, hyper-parameters, parameter table (name, shape, offset),
               loss of batch 0, the losses of the AdamW steps
  weights.f32  initial parameters, concatenated in table order
  grads.f32    their gradients of batch 0's loss (before clipping)
  logits0.f32  logits of batch 0's first sequence, [T, logits]
  tokens.i32   steps*B*T+1 tokens; batch k = tokens[k*B*T : k*B*T + B*T + 1]
"""
import torch

from llm_common import write_fixture as write_fixture_files

HYPER = dict(lr=6e-4, warmup_steps=10, weight_decay=0.1, grad_clip=1.0, betas=(0.9, 0.95), eps=1e-8)


def learnable_tokens(n):
    """A learnable stream over 256 ids: each token mostly followed by (3 t + 1) mod 255, EOT 255 now and then."""
    g = torch.Generator().manual_seed(7)
    noise = torch.randint(0, 255, (n,), generator=g)
    keep = torch.rand(n, generator=g) < 0.7
    tokens = torch.empty(n, dtype=torch.long)
    tokens[0] = 255
    for i in range(1, n):
        tokens[i] = (3 * tokens[i - 1] + 1) % 255 if keep[i] else noise[i]
    return tokens


def write_fixture(out, model, cfg, B, steps):
    """`model` (seeded and initialised by the caller) has forward(idx) -> logits and loss(logits, targets)."""
    T = cfg["block_size"]
    tokens = learnable_tokens(steps * B * T + 1)

    def batch(k):
        buf = tokens[k * B * T: (k + 1) * B * T + 1]
        return buf[:-1].view(B, T), buf[1:].view(B, T)

    def forward0():
        x, y = batch(0)
        logits = model(x)
        return model.loss(logits, y), {"tokens.i32": tokens.numpy().astype("<i4"),
                                       "logits0.f32": logits[0].detach().numpy().astype("<f4")}

    def loss_at(k):
        x, y = batch(k)
        return model.loss(model(x), y)

    return write_fixture_files(out, model, forward0, loss_at, steps, HYPER, dict(config=cfg, batch_size=B))
