"""The GPU twins whose CPU twins in this folder time themselves (vae.py, wlm.py,
translator.py): the same models, data and step as those, on the original's
loop (original_loop.py: init_torch, RateLogger with the device's sync at slice
ends, dataloop) so that every GPU twin is measured as milarun measures
(perf = mean(rates[-20:-2])). Each function takes the argument list of
gpu_twins.py's table and returns report()'s line.

- vae: milarun/models/vae.py: MNIST ToTensor through DataLoader(shuffle,
  num_workers=1, pin_memory) on CUDA, VAE 784-400-20, Adam 1e-3, count
  len(data), loss.item() every step.
- wlm / wlmfp16: main.py / main_fp16_optimizer.py: batchified train split on
  the device, bptt chunks, clip 0.25 (the norm read back), SGD lr 20, the loss
  read back every step; wlmfp16: vocabulary padded to a multiple of 8, the
  model halved first, FP16_Optimizer(static_loss_scale=128): float32 masters,
  master gradients clipped (apex_fp16.py); its lr never anneals.
- translator: GNMT with Adam 5e-4, label-smoothed loss read back, / batch,
  backward, clip 5 (read back), step; batches collated outside the timed block.
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms

import translator as gnmt
import wlm as wlm_twin
from apex_fp16 import FP16Optimizer
from original_loop import RateLogger, add_init_torch_args, dataloop, init_torch, report


def _args(argv, extra):
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=64)
    for name, kw in extra:
        p.add_argument(name, **kw)
    add_init_torch_args(p)
    return p.parse_args(argv)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc21, self.fc22 = nn.Linear(784, 400), nn.Linear(400, 20), nn.Linear(400, 20)
        self.fc3, self.fc4 = nn.Linear(20, 400), nn.Linear(400, 784)

    def forward(self, x):
        h1 = F.relu(self.fc1(x.view(-1, 784)))
        mu, logvar = self.fc21(h1), self.fc22(h1)
        z = torch.randn_like(mu).mul(torch.exp(0.5 * logvar)).add_(mu)
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z)))), mu, logvar


def vae(argv):
    a = _args(argv, [])
    device = init_torch(a)
    train = datasets.MNIST(os.path.join(a.dataroot, "mnist"), train=True, download=False,
                           transform=transforms.ToTensor())
    cuda = device.type == "cuda"
    loader = torch.utils.data.DataLoader(train, batch_size=a.batch_size, shuffle=True,
                                         num_workers=1 if cuda else 0, pin_memory=cuda)
    model = VAE().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    wrapper = RateLogger(a.max_count, a.sample_duration)
    for it, (data, _) in dataloop(loader, wrapper):
        it.set_count(len(data))
        data = data.to(device)
        optimizer.zero_grad()
        recon, mu, logvar = model(data)
        bce = F.binary_cross_entropy(recon, data.view(-1, 784), reduction="sum")
        loss = bce - 0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss.backward()
        it.log(loss=loss.item())
        optimizer.step()
    return report("vae", wrapper, batch_size=a.batch_size)


def wlm(argv):
    a = _args(argv, [("--model", {"default": "GRU"}), ("--emsize", {"type": int, "default": 656}),
                     ("--nhid", {"type": int, "default": 656}), ("--nlayers", {"type": int, "default": 2}),
                     ("--dropout", {"type": float, "default": 0.5}), ("--bptt", {"type": int, "default": 35}),
                     ("--lr", {"type": float, "default": 20}), ("--clip", {"type": float, "default": 0.25}),
                     ("--fp16", {"action": "store_true"}),
                     ("--half-dtype", {"default": "float16", "choices": ["float16", "bfloat16"]})])
    device = init_torch(a)
    index, ids = {}, []
    for split in ("train", "valid", "test"):
        out = []
        wlm_twin.tokenize(os.path.join(a.dataroot, "wikitext-2", "wiki." + split + ".tokens"), index, out)
        ids = out if split == "train" else ids
    ntokens = (len(index) + 7) // 8 * 8 if a.fp16 else len(index)  # pad_to_multiple_of=8
    data = torch.tensor(ids, dtype=torch.long)
    nbatch = data.size(0) // a.batch_size
    train = data.narrow(0, 0, nbatch * a.batch_size).view(a.batch_size, -1).t().contiguous().to(device)
    model = wlm_twin.RNNModel(a.model, ntokens, a.emsize, a.nhid, a.nlayers, a.dropout).to(device)
    dtype = getattr(torch, a.half_dtype) if a.fp16 else torch.float32
    model.to(dtype)  # main_fp16: model.type(HalfTensor) before the optimizer
    optimizer = torch.optim.SGD(model.parameters(), lr=a.lr)
    if a.fp16:
        optimizer = FP16Optimizer(optimizer, static_loss_scale=128.0)
    criterion = nn.CrossEntropyLoss()
    wrapper = RateLogger(a.max_count, a.sample_duration)
    model.train()
    while not wrapper.done():
        hidden = wlm_twin.repackage(model.init_hidden(a.batch_size))
        hidden = tuple(h.to(device, dtype) for h in hidden) if isinstance(hidden, tuple) else hidden.to(device, dtype)
        for i in range(0, train.size(0) - 1, a.bptt):
            if wrapper.done():
                break
            with wrapper.block(count=a.batch_size) as it:
                seq_len = min(a.bptt, train.size(0) - 1 - i)
                x, y = train[i:i + seq_len], train[i + 1:i + 1 + seq_len].reshape(-1)
                hidden = wlm_twin.repackage(hidden)
                model.zero_grad()
                output, hidden = model(x, hidden)
                loss = criterion(output.view(-1, ntokens), y)
                if a.fp16:
                    optimizer.backward(loss)
                    optimizer.clip_master_grads(a.clip)
                    optimizer.step()
                else:
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip)
                    with torch.no_grad():
                        for q in model.parameters():
                            q.add_(q.grad, alpha=-a.lr)
                it.log(loss=loss.item())
                loss.item()  # total_loss += loss.data, read at the next log: as milarun's second read
    return report("wlmfp16" if a.fp16 else "wlm", wrapper, batch_size=a.batch_size)


def translator(argv):
    a = _args(argv, [("--hidden-size", {"type": int, "default": 1024}), ("--num-layers", {"type": int, "default": 4}),
                     ("--max-size", {"type": int, "default": 0})])
    device = init_torch(a)
    vocab, pairs = gnmt.read_data(a.dataroot, 50, a.max_size)
    model = gnmt.GNMT(vocab, a.hidden_size, a.num_layers).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    model.train()
    wrapper = RateLogger(a.max_count, a.sample_duration)
    epoch = 0
    while not wrapper.done():
        for src, src_len, tgt in gnmt.batches(pairs, a.batch_size, epoch):
            src, tgt = src.to(device), tgt.to(device)
            with wrapper.block(count=a.batch_size) as it:
                logits = model(src, src_len, tgt[:-1])
                loss = gnmt.smoothed_loss(logits.view(-1, logits.size(2)), tgt[1:].reshape(-1))
                it.log(loss=loss.item())
                (loss / a.batch_size).backward()
                float(nn.utils.clip_grad_norm_(model.parameters(), 5.0))
                opt.step()
                opt.zero_grad()
            if wrapper.done():
                break
        epoch += 1
    return report("translator", wrapper, batch_size=a.batch_size)
