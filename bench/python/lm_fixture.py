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
import json
import os

import torch

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


def dump(out, name, t, fmt="<f4"):
    t.detach().numpy().astype(fmt).tofile(os.path.join(out, name))


def write_fixture(out, model, cfg, B, steps):
    """`model` (seeded and initialised by the caller) has forward(idx) -> logits and loss(logits, targets)."""
    os.makedirs(out, exist_ok=True)
    T = cfg["block_size"]
    tokens = learnable_tokens(steps * B * T + 1)

    def batch(k):
        buf = tokens[k * B * T: (k + 1) * B * T + 1]
        return buf[:-1].view(B, T), buf[1:].view(B, T)

    named = list(model.named_parameters())
    params = [p for _, p in named]
    table, off = [], 0
    for name, p in named:
        table.append(dict(name=name, shape=list(p.shape), offset=off))
        off += p.numel()
    dump(out, "weights.f32", torch.cat([p.reshape(-1) for p in params]))
    dump(out, "tokens.i32", tokens, "<i4")

    x, y = batch(0)
    logits = model(x)
    loss0 = model.loss(logits, y)
    loss0.backward()
    dump(out, "logits0.f32", logits[0])
    dump(out, "grads.f32", torch.cat([p.grad.reshape(-1) for p in params]))

    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": HYPER["weight_decay"]},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=HYPER["lr"], betas=HYPER["betas"], eps=HYPER["eps"])
    losses = []
    for step in range(steps):
        opt.zero_grad(set_to_none=True)
        x, y = batch(step)
        loss = model.loss(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, HYPER["grad_clip"])
        lr = HYPER["lr"] * (step + 1) / HYPER["warmup_steps"] if step < HYPER["warmup_steps"] else HYPER["lr"]
        for grp in opt.param_groups:
            grp["lr"] = lr
        opt.step()
        losses.append(loss.item())
    index = dict(config=cfg, batch_size=B, steps=steps, hyper=HYPER, params=table, parameters=off,
                 loss=loss0.item(), losses=losses, torch=torch.__version__)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"wrote {out}: {off} parameters, loss {loss0.item():.6f}, losses {losses[0]:.4f} .. {losses[-1]:.4f}")
