"""What the 2026 workloads' Python scripts share (the parity references
*_reference.py and the eager twins gpt2.py, vit.py, llama.py, dit.py): the
optimizer and step of src/training/transformer_training.hpp, the twins'
command line and token stream, and the fixture files the C++ parity tests
read (tests/workloads/parity_fixture.hpp)."""
import argparse
import contextlib
import glob
import json
import os
import time

import numpy as np
import torch

LLAMA3_MAGIC = 20240801  # llm.c's Llama 3 shards: uint32 tokens (GPT-2's, 20240520: uint16)


def twin_arguments(full_help, tokens):
    """The eager twins' command line, parsed; sets torch's threads and the
    seed. `tokens`: the twin reads an llm.c token dataset (-d required),
    else it makes its inputs on the device (--pool-batches)."""
    ap = argparse.ArgumentParser()
    if tokens:
        ap.add_argument("-d", "--dataroot", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--full", action="store_true", help=full_help)
    if not tokens:
        ap.add_argument("--pool-batches", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--steps", type=int, default=200)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1234)
    return a


def token_loss(model, dataroot, data, B, T, dev):
    """loss_at(step) for a language-model twin: next-token loss over
    consecutive B x T windows of the dataset's first training shard (uint16,
    or uint32 by Llama 3's magic), wrapping as the workload's TokenLoader."""
    shard = sorted(glob.glob(os.path.join(dataroot, data, "*_train_*.bin")))[0]
    header = np.fromfile(shard, dtype="<i4", count=256)
    width = "<u4" if header[0] == LLAMA3_MAGIC else "<u2"
    tokens = torch.from_numpy(np.fromfile(shard, dtype=width, offset=1024, count=int(header[2])).astype(np.int64))
    n, pos = B * T, [0]

    def loss_at(step):
        at = pos[0]
        pos[0] = at + n if at + 2 * n + 1 <= len(tokens) else 0
        buf = tokens[at:at + n + 1]
        x, y = buf[:-1].view(B, T).to(dev, non_blocking=True), buf[1:].view(B, T).to(dev, non_blocking=True)
        return model.loss(model(x), y)

    return loss_at


def adamw(params, hyper):
    """AdamW with llm.c's split: weight decay on dim >= 2, none on the rest;
    fused on CUDA (llm.c's configure_optimizers, and the workload's AdamWStep),
    the per-parameter loop on the CPU."""
    params = list(params)
    fused = {"fused": True} if params and params[0].is_cuda else {}
    return torch.optim.AdamW([{"params": [p for p in params if p.dim() >= 2], "weight_decay": hyper["weight_decay"]},
                              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}],
                             lr=hyper["lr"], betas=hyper["betas"], eps=hyper["eps"], **fused)


def train_step(opt, params, hyper, step, loss_fn, cuda=False):
    """One step as AdamWTrainer: zero_grad(set_to_none), the loss (bf16
    autocast on CUDA), backward, clip, the step's lr (linear warm-up), AdamW;
    returns the loss and the norm read on the host."""
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16) if cuda else contextlib.nullcontext():
        loss = loss_fn()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(params, hyper["grad_clip"])
    w = hyper["warmup_steps"]
    for g in opt.param_groups:
        g["lr"] = hyper["lr"] * (step + 1) / w if step < w else hyper["lr"]
    opt.step()
    return loss.item(), norm.item()


def timed_steps(model, hyper, loss_at, warmup, steps, cuda):
    """Runs warmup + steps training steps (loss_at(step) makes the loss);
    returns (seconds of the last `steps`, the last loss)."""
    params = list(model.parameters())
    opt = adamw(params, hyper)
    t0, loss = time.perf_counter(), float("nan")
    for step in range(warmup + steps):
        if step == warmup:
            t0 = time.perf_counter()
        loss, _ = train_step(opt, params, hyper, step, lambda: loss_at(step), cuda)
    return time.perf_counter() - t0, loss


def write_fixture(out, model, forward0, loss_at, steps, hyper, index):
    """Writes a parity fixture: weights.f32 (the initial parameters in
    named_parameters order), the arrays of `forward0()` (it returns batch 0's
    loss and {file: numpy array} to write as they are: inputs, logits),
    grads.f32 (of that loss), and index.json (`index` plus the parameter
    table, batch 0's loss and the losses of `steps` train_steps on
    loss_at(k)). Returns the losses."""
    os.makedirs(out, exist_ok=True)
    named = list(model.named_parameters())
    params = [p for _, p in named]
    table, off = [], 0
    for name, p in named:
        table.append(dict(name=name, shape=list(p.shape), offset=off))
        off += p.numel()
    torch.cat([p.detach().reshape(-1) for p in params]).numpy().astype("<f4").tofile(os.path.join(out, "weights.f32"))
    loss0, arrays = forward0()
    loss0.backward()
    for name, a in arrays.items():
        a.tofile(os.path.join(out, name))
    torch.cat([p.grad.reshape(-1) for p in params]).numpy().astype("<f4").tofile(os.path.join(out, "grads.f32"))
    opt = adamw(params, hyper)
    losses = [train_step(opt, params, hyper, k, lambda: loss_at(k))[0] for k in range(steps)]
    index = dict(index, steps=steps, hyper=hyper, params=table, parameters=off, loss=loss0.item(), losses=losses,
                 torch=torch.__version__)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"wrote {out}: {off} parameters, loss {loss0.item():.6f}, losses {losses[0]:.4f} .. {losses[-1]:.4f}")
    return losses
