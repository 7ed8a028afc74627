#!/usr/bin/env python3
"""wlm in PyTorch Python eager, for comparing with `milarun run wlm`.

The word_language_model example's RNNModel and train() on the same
DATAROOT/wikitext-2 files, same sizes; prints sequences/s (--batch-size per
step, the milarun count unit) over --steps timed steps after --warmup steps.
  python3 bench/python/wlm.py -d DATAROOT --batch-size 64 --threads 2 [--bf16]
"""
import argparse
import os
import time

import torch
import torch.nn as nn


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.encoder.weight.data.uniform_(-0.1, 0.1)
        self.decoder.bias.data.zero_()
        self.decoder.weight.data.uniform_(-0.1, 0.1)
        self.rnn_type, self.nhid, self.nlayers = rnn_type, nhid, nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        return self.decoder(self.drop(output)), hidden

    def init_hidden(self, bsz):
        z = torch.zeros(self.nlayers, bsz, self.nhid)
        return (z, z.clone()) if self.rnn_type == "LSTM" else z


def tokenize(path, index, out):
    with open(path, "r", encoding="utf8") as f:
        for line in f:
            for w in line.split() + ["<eos>"]:
                out.append(index.setdefault(w, len(index)))


def repackage(h):
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage(v) for v in h)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("-d", "--dataroot", default=os.environ.get("MILARUN_DATAROOT", "data"))
    p.add_argument("--model", default="GRU")
    p.add_argument("--emsize", type=int, default=656)
    p.add_argument("--nhid", type=int, default=656)
    p.add_argument("--nlayers", type=int, default=2)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--bptt", type=int, default=35)
    p.add_argument("--lr", type=float, default=20)
    p.add_argument("--clip", type=float, default=0.25)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--bf16", action="store_true", help="CPU bfloat16 autocast (wlmfp16 on CPU)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)

    index, ids = {}, []
    for split in ("train", "valid", "test"):
        out = []
        tokenize(os.path.join(a.dataroot, "wikitext-2", "wiki." + split + ".tokens"), index, out)
        if split == "train":
            ids = out
    data = torch.tensor(ids, dtype=torch.long)
    nbatch = data.size(0) // a.batch_size
    train = data.narrow(0, 0, nbatch * a.batch_size).view(a.batch_size, -1).t().contiguous()
    ntokens = len(index)
    model = RNNModel(a.model, ntokens, a.emsize, a.nhid, a.nlayers, a.dropout)
    model.train()
    criterion = nn.CrossEntropyLoss()

    hidden = model.init_hidden(a.batch_size)
    done, t0 = 0, None
    i = 0
    while done < a.warmup + a.steps:
        if i + 1 >= nbatch:
            i, hidden = 0, model.init_hidden(a.batch_size)
        seq_len = min(a.bptt, nbatch - 1 - i)
        x, y = train[i:i + seq_len], train[i + 1:i + 1 + seq_len].reshape(-1)
        i += a.bptt
        hidden = repackage(hidden)
        model.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
            output, hidden = model(x, hidden)
            loss = criterion(output.view(-1, ntokens).float(), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip)
        with torch.no_grad():
            for q in model.parameters():
                q.add_(q.grad, alpha=-a.lr)
        loss.item(); loss.item()  # the original's it.log(loss=loss.item()); total_loss += loss.item()
        done += 1
        if done == a.warmup:
            t0 = time.perf_counter()
    dt = time.perf_counter() - t0
    print(f"wlm python eager: torch {torch.__version__}, {torch.get_num_threads()} threads, vocabulary {ntokens}, "
          f"{'bf16' if a.bf16 else 'fp32'}, batch {a.batch_size}: {a.steps * a.batch_size / dt:.1f} sequences/s "
          f"({dt / a.steps * 1000:.0f} ms/step), loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
