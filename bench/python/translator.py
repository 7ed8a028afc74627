#!/usr/bin/env python3
"""PyTorch eager reference for the translator workload (GNMT v2 as the original
milabench rnn_translator), for speed comparison with `milarun run translator`.

Same model, loss, optimizer, data files, length filter and bucketing as
src/workloads/translator.cpp; rates are sentences/second in 0.5 s slices and the
figure printed is sentences / seconds after the first 5 s (steady state; with
bucketing, step times vary, so this is weighted by time like the C++ slices).

  python3 bench/python/translator.py --dataroot DATAROOT --hidden-size 256 \
      --batch-size 32 --max-size 20000 --seconds 60 --threads 2
  python3 bench/python/translator.py --count-only        # parameter count at the default size
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = ["<pad>", "<unk>", "<s>", "<\\s>"]


class Attention(nn.Module):
    """Normalized Bahdanau attention, time-major in and out."""

    def __init__(self, h):
        super().__init__()
        self.linear_q = nn.Linear(h, h, bias=False)
        self.linear_k = nn.Linear(h, h, bias=False)
        stdv = 1.0 / math.sqrt(h)
        self.linear_att = nn.Parameter(torch.empty(h).uniform_(-stdv, stdv))
        self.normalize_scalar = nn.Parameter(torch.full((1,), stdv))
        self.normalize_bias = nn.Parameter(torch.zeros(h))

    def forward(self, query, keys, mask):
        k, q = keys.transpose(0, 1), query.transpose(0, 1)
        b, tk, n = k.shape
        tq = q.size(1)
        s = self.linear_q(q).unsqueeze(2).expand(b, tq, tk, n) + self.linear_k(k).unsqueeze(1).expand(b, tq, tk, n)
        s = s + self.normalize_bias
        v = self.linear_att / self.linear_att.norm() * self.normalize_scalar
        scores = torch.tanh(s).matmul(v).masked_fill(mask.unsqueeze(1).expand(b, tq, tk), -65504.0)
        return torch.bmm(F.softmax(scores, -1), k).transpose(0, 1)


class GNMT(nn.Module):
    def __init__(self, vocab, h=1024, layers=4, dropout=0.2):
        super().__init__()
        self.embedder = nn.Embedding(vocab, h, padding_idx=PAD)  # shared
        self.enc_bidir = nn.LSTM(h, h, bidirectional=True)
        self.enc_layers = nn.ModuleList([nn.LSTM(2 * h, h)] + [nn.LSTM(h, h) for _ in range(layers - 2)])
        self.dec_att_rnn = nn.LSTM(h, h)
        self.attention = Attention(h)
        self.dec_layers = nn.ModuleList([nn.LSTM(2 * h, h) for _ in range(layers - 1)])
        self.classifier = nn.Linear(h, vocab)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src, src_len, tgt_in):
        x = pack_padded_sequence(self.embedder(src), src_len)
        x, _ = pad_packed_sequence(self.enc_bidir(x)[0])
        x, _ = self.enc_layers[0](self.dropout(x))
        for layer in self.enc_layers[1:]:
            x = layer(self.dropout(x))[0] + x
        ctx = x
        mask = torch.arange(ctx.size(0), device=ctx.device).unsqueeze(0) >= src_len.to(ctx.device).unsqueeze(1)
        y, _ = self.dec_att_rnn(self.embedder(tgt_in))
        attn = self.attention(y, ctx, mask)
        y, _ = self.dec_layers[0](torch.cat((self.dropout(y), attn), 2))
        for layer in self.dec_layers[1:]:
            y = layer(torch.cat((self.dropout(y), attn), 2))[0] + y
        return self.classifier(y)


def smoothed_loss(logits, target, smoothing=0.1):
    lp = F.log_softmax(logits.float(), -1)
    keep = target != PAD
    nll = -lp.gather(-1, target.unsqueeze(1)).squeeze(1)
    return ((1 - smoothing) * nll + smoothing * -lp.mean(-1))[keep].sum()


def read_data(root, max_len, max_size):
    d = os.path.join(root, "wmt16")
    vocab = SPECIALS + [l.strip() for l in open(os.path.join(d, "vocab.bpe.32000"))]
    index = {t: i for i, t in enumerate(vocab)}

    def read(name):
        out = []
        with open(os.path.join(d, name)) as f:
            for i, line in enumerate(f):
                if max_size and i == max_size:
                    break
                out.append([BOS] + [index.get(t, UNK) for t in line.split()] + [EOS])
        return out

    src, tgt = read("train.tok.clean.bpe.32000.en"), read("train.tok.clean.bpe.32000.de")
    pairs = [(s, t) for s, t in zip(src, tgt) if len(s) <= max_len and len(t) <= max_len]
    return len(vocab), pairs


def batches(pairs, bs, epoch, bucket=True):
    g = torch.Generator().manual_seed(epoch)
    n = len(pairs) // bs * bs
    idx = torch.randperm(len(pairs), generator=g)[:n]
    lengths = torch.tensor([len(s) + len(t) for s, t in pairs])[idx]
    shard = bs * 80 if bucket else n
    idx = idx if not bucket else torch.cat([idx[i:i + shard][lengths[i:i + shard].sort(stable=True)[1]] for i in range(0, n, shard)])
    order = idx.view(-1, bs)[torch.randperm(n // bs, generator=g)] if bucket else idx.view(-1, bs)
    for row in order.tolist():
        b = sorted((pairs[i] for i in row), key=lambda p: -len(p[0]))
        ts, tt = max(len(p[0]) for p in b), max(len(p[1]) for p in b)
        src = torch.full((ts, bs), PAD, dtype=torch.long)
        tgt = torch.full((tt, bs), PAD, dtype=torch.long)
        for j, (s, t) in enumerate(b):
            src[:len(s), j] = torch.tensor(s)
            tgt[:len(t), j] = torch.tensor(t)
        yield src, torch.tensor([len(p[0]) for p in b]), tgt


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", default=os.environ.get("MILARUN_DATAROOT", "data"))
    p.add_argument("--hidden-size", type=int, default=1024)
    p.add_argument("--num-layers", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--max-size", type=int, default=0)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--no-bucketing", action="store_true")
    p.add_argument("--count-only", action="store_true")
    p.add_argument("--vocab-size", type=int, default=32317, help="with --count-only")
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    if a.count_only:
        m = GNMT(a.vocab_size, a.hidden_size, a.num_layers)
        print(sum(t.numel() for t in m.parameters()))
        return
    vocab, pairs = read_data(a.dataroot, 50, a.max_size)
    model = GNMT(vocab, a.hidden_size, a.num_layers)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, vocab {vocab}, pairs {len(pairs)}, "
          f"parameters {sum(t.numel() for t in model.parameters())}")
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    model.train()
    rates, count, t0 = [], 0, time.perf_counter()
    start = slice_start = t0
    epoch = 0
    while time.perf_counter() - start < a.seconds:
        for src, src_len, tgt in batches(pairs, a.batch_size, epoch, not a.no_bucketing):
            logits = model(src, src_len, tgt[:-1])
            loss = smoothed_loss(logits.view(-1, logits.size(2)), tgt[1:].reshape(-1))
            loss.item()  # the original's loss_per_batch = loss.item(), before backward
            (loss / a.batch_size).backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            opt.zero_grad()
            count += a.batch_size
            now = time.perf_counter()
            if now - slice_start >= 0.5:
                rates.append((count, now - slice_start, now - start))
                count, slice_start = 0, now
            if now - start >= a.seconds:
                break
        epoch += 1
    # Throughput after the first 5 s: sentences / seconds. Steps vary in length
    # (bucketing), so this weights them by time, as the C++ meter's 0.5 s slices do.
    steady = [(c, dt) for c, dt, t in rates if t > 5]
    n, secs = sum(c for c, _ in steady), sum(dt for _, dt in steady)
    print(f"loss/token {loss.item() / float((tgt[1:] != PAD).sum()):.3f}")
    print(f"sentences/s after 5 s: {n / max(secs, 1e-9):.2f} ({n} sentences in {secs:.1f} s)")


if __name__ == "__main__":
    main()
