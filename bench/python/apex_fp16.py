"""apex's FP16_Optimizer as the original milabench ran it, for the GPU twins:
apex at breuleux/apex 7f313e9 (the original's poetry.lock), built without its
CUDA extension (amp_C), so every unscale ran the Python fallback. Written from
that code's behaviour (docs/fidelity.md, "Mixed precision"):

- LossScaler: apex.amp's scaler. "dynamic": 2^16, halved on an overflow (no
  floor) and the step skipped, doubled after 2000 clean steps in a row, never
  above 2^24. A number: a static scale, never checked. The overflow check reads
  float(grad.float().sum()) of each gradient in order and stops at the first
  non-finite one; each checked gradient is copied to its master and scaled by
  1/scale.
- FP16Optimizer: a float16 parameter gets a float32 master that the wrapped
  optimizer steps (copied back after the step); a float32 parameter is its own
  master. What it is given decides: the original's convnet_fp16 built it over
  float32 parameters and halved the model afterwards, so nothing had a master
  and SGD stepped the float16 weights; wlmfp16 halved the model first.
"""
import math

import torch


class LossScaler:
    def __init__(self, loss_scale, init_scale=2.0 ** 16, scale_factor=2.0, scale_window=2000,
                 max_loss_scale=2.0 ** 24):
        self.dynamic = loss_scale == "dynamic"
        self.scale = min(max_loss_scale, init_scale) if self.dynamic else float(loss_scale)
        self.factor, self.window, self.max = scale_factor, scale_window, max_loss_scale
        self.unskipped, self.overflow, self.skipped = 0, False, 0

    def unscale(self, model_grads, master_grads):
        if self.overflow:  # an earlier group overflowed: nothing more is checked this step
            return
        for model, master in zip(model_grads, master_grads):
            if self.dynamic:
                s = float(model.float().sum())  # one host read per gradient
                if math.isinf(s) or s != s:
                    self.overflow = True
                    return
            if master is not model:
                master.copy_(model)
            if self.scale != 1.0:
                master.mul_(1.0 / self.scale)

    def update_scale(self):
        """Returns whether the step must be skipped."""
        skip = self.overflow and self.dynamic
        if skip:
            self.scale /= self.factor
            self.unskipped, self.skipped = 0, self.skipped + 1
        else:
            self.unskipped += 1
        if self.dynamic and self.unskipped == self.window:
            self.scale, self.unskipped = min(self.max, self.scale * self.factor), 0
        self.overflow = False
        return skip


class FP16Optimizer:
    def __init__(self, optimizer, static_loss_scale=1.0, dynamic_loss_scale=False):
        self.optimizer = optimizer
        self.pairs = []  # (model parameter, master) in parameter order
        for group in optimizer.param_groups:
            for i, p in enumerate(group["params"]):
                if p.dtype in (torch.float16, torch.bfloat16):
                    master = p.detach().clone().float().requires_grad_(True)
                    group["params"][i] = master
                    self.pairs.append((p, master))
                else:
                    self.pairs.append((p, p))
        self.scaler = LossScaler("dynamic" if dynamic_loss_scale else static_loss_scale)
        self.overflow = False

    def masters(self):
        return [m for _, m in self.pairs]

    def zero_grad(self):
        for p, m in self.pairs:
            for t in {id(p): p, id(m): m}.values():
                if t.grad is not None:
                    t.grad.detach_()
                    t.grad.zero_()

    def backward(self, loss):
        (loss.float() * self.scaler.scale).backward()
        halves = [(p, m) for p, m in self.pairs if p is not m and p.grad is not None]
        for p, m in halves:
            if m.grad is None:
                m.grad = torch.empty_like(m)
        self.scaler.unscale([p.grad for p, _ in halves], [m.grad for _, m in halves])
        own = [p for p, m in self.pairs if p is m and p.grad is not None]
        self.scaler.unscale([p.grad for p in own], [p.grad for p in own])
        self.overflow = self.scaler.update_scale()

    def clip_master_grads(self, max_norm):
        if self.overflow:
            return -1
        return torch.nn.utils.clip_grad_norm_(self.masters(), max_norm)

    def step(self):
        if self.overflow:
            return
        self.optimizer.step()
        with torch.no_grad():
            for p, m in self.pairs:
                if p is not m:
                    p.copy_(m)


def network_to_half(model, dtype=torch.float16):
    """apex's network_to_half on the model itself: .to(dtype) keeps each
    parameter object (its .data is replaced), affine BatchNorm back to float32."""
    model.to(dtype)
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.affine:
            m.float()
    return model
